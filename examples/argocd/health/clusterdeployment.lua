-- Health of a ClusterDeployment (hive.openshift.io) installed through an
-- AgentClusterInstall: Hive copies the install conditions onto it and sets
-- spec.installed when the installation completed (openshift/hive
-- pkg/controller/clusterdeployment/clusterinstalls.go).
local hs = {}

local failed = condition("ProvisionFailed")
local installFailed = condition("ClusterInstallFailed")
local completed = condition("ClusterInstallCompleted")
local requirements = condition("ClusterInstallRequirementsMet")

if obj.spec ~= nil and obj.spec.installed == true then
  hs.status = "Healthy"
  if completed ~= nil and completed.message ~= nil then
    hs.message = completed.message
  else
    hs.message = "The cluster is installed"
  end
  return hs
end
if failed ~= nil and failed.status == "True" then
  hs.status = "Degraded"
  if installFailed ~= nil and installFailed.message ~= nil then
    hs.message = installFailed.message
  else
    hs.message = failed.message
  end
  return hs
end
if completed ~= nil and completed.reason == "InstallationOnHold" then
  hs.status = "Suspended"
  hs.message = completed.message
  return hs
end
hs.status = "Progressing"
if completed ~= nil and completed.reason == "InstallationInProgress" then
  hs.message = completed.message
elseif requirements ~= nil and requirements.message ~= nil then
  hs.message = requirements.message
else
  hs.message = "Waiting for the cluster install to report"
end
return hs
