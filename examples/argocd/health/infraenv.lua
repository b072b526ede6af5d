-- Health of an InfraEnv (agent-install.openshift.io), from its one
-- condition, ImageCreated (openshift/assisted-service
-- internal/controller/controllers/infraenv_controller.go,
-- updateInfraEnvStatus).
local hs = {}
local created = nil
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    if c.type == "ImageCreated" then
      created = c
    end
  end
end
if created == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the discovery image"
elseif created.status == "True" and obj.status.isoDownloadURL ~= nil then
  hs.status = "Healthy"
  hs.message = created.message
elseif created.status == "False" then
  hs.status = "Degraded"
  hs.message = created.message
else
  hs.status = "Progressing"
  hs.message = created.message
end
return hs
