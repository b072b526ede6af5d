-- Helpers every health script here starts with: argocd-cm.yaml holds
-- each script with this file in front of it (Argo CD runs a health script
-- on its own, with the resource as the global obj).

-- condition is the status condition of obj of that type, or nil.
local function condition(name)
  if obj.status ~= nil and obj.status.conditions ~= nil then
    for _, c in ipairs(obj.status.conditions) do
      if c.type == name then
        return c
      end
    end
  end
  return nil
end
