-- Health of an Agent (agent-install.openshift.io), the host as the
-- assisted service sees it, from what its Agent controller writes
-- (openshift/assisted-service internal/controller/controllers/agent_controller.go,
-- updateStatus): conditions, debugInfo and progress.
local hs = {}

local installed = condition("Installed")
local validated = condition("Validated")
local connected = condition("Connected")
local requirements = condition("RequirementsMet")

if installed == nil or installed.reason == "NotAvailable" then
  hs.status = "Progressing"
  hs.message = "Waiting for the host to register"
  return hs
end
if installed.status == "True" then
  hs.status = "Healthy"
  hs.message = installed.message
  return hs
end
if installed.reason == "InstallationFailed" then
  hs.status = "Degraded"
  hs.message = installed.message
  return hs
end
if connected ~= nil and connected.status == "False" then
  hs.status = "Degraded"
  hs.message = connected.message
  return hs
end
if validated ~= nil and validated.status == "False" and validated.reason == "ValidationsFailing" then
  hs.status = "Degraded"
  hs.message = validated.message
  return hs
end
if installed.reason == "InstallationInProgress" then
  local percent = 0
  local stage = installed.message
  if obj.status.progress ~= nil then
    if obj.status.progress.installationPercentage ~= nil then
      percent = obj.status.progress.installationPercentage
    end
    if obj.status.progress.currentStage ~= nil then
      stage = obj.status.progress.currentStage
    end
  end
  hs.status = "Progressing"
  hs.message = "Installing " .. percent .. "%: " .. stage
  return hs
end
hs.status = "Progressing"
if requirements ~= nil and requirements.message ~= nil then
  hs.message = requirements.message
else
  hs.message = installed.message
end
return hs
