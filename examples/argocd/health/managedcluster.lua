-- Health of a ManagedCluster (cluster.open-cluster-management.io), from
-- the conditions Open Cluster Management's registration controllers
-- write (open-cluster-management-io/api cluster/v1/types.go). A site's
-- cluster joins the hub only once it is installed and imported.
local hs = {}

local accepted = condition("HubAcceptedManagedCluster")
local joined = condition("ManagedClusterJoined")
local available = condition("ManagedClusterConditionAvailable")

if accepted ~= nil and accepted.status == "False" then
  hs.status = "Degraded"
  hs.message = accepted.message
elseif available ~= nil and available.status == "True" then
  hs.status = "Healthy"
  hs.message = available.message
elseif available ~= nil and joined ~= nil and joined.status == "True" then
  hs.status = "Degraded"
  hs.message = available.message
elseif accepted == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the hub to accept the cluster"
else
  hs.status = "Progressing"
  hs.message = "Waiting for the cluster to join the hub (once installed and imported)"
end
return hs
