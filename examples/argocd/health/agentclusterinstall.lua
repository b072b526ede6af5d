-- Health of an AgentClusterInstall (extensions.hive.openshift.io), from what
-- assisted-service's ClusterDeployments controller writes in its status
-- (openshift/assisted-service
-- internal/controller/controllers/clusterdeployments_controller.go,
-- updateStatus): the conditions, debugInfo, progress and validationsInfo.
local hs = {}
-- The cluster validation that fails when a registered host cannot be
-- installed (its Agent says why).
local function hostsNotReady()
  if obj.status == nil or obj.status.validationsInfo == nil then
    return nil
  end
  for _, group in pairs(obj.status.validationsInfo) do
    for _, v in ipairs(group) do
      if v.id == "all-hosts-are-ready-to-install" and v.status == "failure" then
        return v
      end
    end
  end
  return nil
end

local completed = condition("Completed")
local failed = condition("Failed")
local synced = condition("SpecSynced")
local validated = condition("Validated")
local requirements = condition("RequirementsMet")

if completed == nil or completed.reason == "NotAvailable" then
  hs.status = "Progressing"
  hs.message = "Waiting for the assisted service to register the cluster"
  return hs
end
if failed ~= nil and failed.status == "True" then
  hs.status = "Degraded"
  hs.message = failed.message
  return hs
end
if completed.status == "True" then
  hs.status = "Healthy"
  hs.message = completed.message
  return hs
end
if synced ~= nil and synced.status == "False" and synced.reason == "InputError" then
  hs.status = "Degraded"
  hs.message = synced.message
  return hs
end
if completed.reason == "InstallationOnHold" then
  hs.status = "Suspended"
  hs.message = completed.message
  return hs
end
if completed.reason == "InstallationInProgress" then
  local percent = 0
  if obj.status.progress ~= nil and obj.status.progress.totalPercentage ~= nil then
    percent = obj.status.progress.totalPercentage
  end
  local state = "installing"
  local info = completed.message
  if obj.status.debugInfo ~= nil then
    if obj.status.debugInfo.state ~= nil then
      state = obj.status.debugInfo.state
    end
    if obj.status.debugInfo.stateInfo ~= nil then
      info = obj.status.debugInfo.stateInfo
    end
  end
  hs.status = "Progressing"
  hs.message = "Installing " .. percent .. "% (" .. state .. "): " .. info
  return hs
end
local host = hostsNotReady()
if host ~= nil then
  hs.status = "Degraded"
  if validated ~= nil and validated.message ~= nil then
    hs.message = validated.message
  else
    hs.message = host.message
  end
  return hs
end
hs.status = "Progressing"
if requirements ~= nil and requirements.status == "False" then
  hs.message = requirements.message
  if validated ~= nil and validated.status == "False" and validated.message ~= nil then
    hs.message = hs.message .. ". " .. validated.message
  end
else
  hs.message = completed.message
end
return hs
