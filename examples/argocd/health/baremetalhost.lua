-- Health of a BareMetalHost (metal3.io), from what the bare-metal operator
-- writes in its status (metal3-io/baremetal-operator
-- apis/metal3.io/v1alpha1/baremetalhost_types.go: operationalStatus,
-- errorType, errorMessage, provisioning.state). In the assisted flow the
-- host's work is done once it boots the discovery image (provisioned);
-- the installation itself shows on the AgentClusterInstall and the Agent.
local hs = {}
if obj.status == nil or obj.status.provisioning == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the bare-metal operator to register the host"
  return hs
end
local state = obj.status.provisioning.state
if obj.status.operationalStatus == "error" then
  hs.status = "Degraded"
  local kind = obj.status.errorType
  if kind == nil or kind == "" then
    kind = "error"
  end
  local msg = obj.status.errorMessage
  if msg == nil then
    msg = ""
  end
  hs.message = kind .. " in state " .. tostring(state) .. ": " .. msg
  return hs
end
if obj.status.operationalStatus == "detached" then
  hs.status = "Healthy"
  hs.message = "Detached: the assisted installer manages the host"
  return hs
end
if state == "provisioned" or state == "externally provisioned" then
  hs.status = "Healthy"
  hs.message = "The host is " .. state
  return hs
end
hs.status = "Progressing"
hs.message = "The host is " .. tostring(state)
return hs
