package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/siteops/siteops/sites"
)

// installConfigOverrides builds the install-config-overrides annotation of the
// AgentClusterInstall the way the generator does (agentClusterInstallAnnotation
// in openshift-kni/cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfigHelper.go): the network type,
// then cpuPartitioningMode, then the user's overrides, JSON-merged when they
// carry "networking" and appended as text otherwise (which keeps their
// spacing).
func installConfigOverrides(c *sites.Clusters) (string, error) {
	return mergeInstallConfig(c.NetworkType, c.InstallConfigOverrides, c.CPUPartitioning, false)
}

// mergeInstallConfig is the merge both formats share: the SiteConfig generator
// and the ClusterInstance operator build the annotation the same way (the
// generator's siteConfigHelper.go; stolostron/siteconfig
// internal/templates/assisted-installer/template.go).
//
// operator is set for a ClusterInstance: the operator splices the text
// without forgiveness, so overrides it would fail on ("{}", "null", white
// space before "{") are errors here too rather than rendered.
func mergeInstallConfig(networkType, overrides string, mode sites.CPUPartitioningMode, operator bool) (string, error) {
	k := installConfigArgs{networkType, overrides, mode, operator}
	if len(networkType)+len(overrides) > maxMemoText {
		return k.merge()
	}
	res := installConfigs.get(k, func() installConfigResult {
		s, err := k.merge()
		return installConfigResult{s, err}
	})
	return res.text, res.err
}

// installConfigs remembers merged overrides: the JSON round trip is a
// tenth of a site's rendering, and sites mostly share their overrides.
var installConfigs = newMemo[installConfigArgs, installConfigResult](1024)

type installConfigArgs struct {
	networkType, overrides string
	mode                   sites.CPUPartitioningMode
	operator               bool
}

type installConfigResult struct {
	text string
	err  error
}

func (a installConfigArgs) merge() (string, error) {
	networkType, overrides, mode, operator := a.networkType, a.overrides, a.mode, a.operator
	if operator && overrides != "" && mode != sites.CPUPartitioningAllNodes {
		if !strings.HasPrefix(overrides, "{") || strings.TrimSpace(overrides) == "{}" {
			return "", errors.New(`installConfigOverrides must be a non-empty JSON object starting with "{" (the operator fails to merge anything else)`)
		}
	}
	nt, err := json.Marshal(networkType)
	if err != nil {
		return "", fmt.Errorf("networkType cannot be written as JSON: %v", err)
	}
	base := `{"networking":{"networkType":` + string(nt) + `}}`
	if mode == sites.CPUPartitioningAllNodes {
		obj := map[string]any{}
		if strings.TrimSpace(overrides) != "" {
			if err := json.Unmarshal([]byte(overrides), &obj); err != nil {
				return "", fmt.Errorf("installConfigOverrides is not a JSON object: %v", err)
			}
		}
		obj["cpuPartitioningMode"] = string(sites.CPUPartitioningAllNodes)
		b, _ := json.Marshal(obj)
		overrides = string(b)
	}
	if strings.TrimSpace(overrides) == "" {
		return base, nil
	}
	var parsed map[string]any
	if err := json.Unmarshal([]byte(overrides), &parsed); err != nil {
		return "", fmt.Errorf("installConfigOverrides is not a JSON object: %v", err)
	}
	if len(parsed) == 0 {
		return base, nil
	}
	if userNet, ok := parsed["networking"]; ok {
		net, ok := userNet.(map[string]any)
		if !ok {
			return "", errors.New(`installConfigOverrides: "networking" must be a JSON object`)
		}
		net["networkType"] = networkType // the site's networkType wins
		b, err := json.Marshal(parsed)
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	// The generator splices the text in: base without its last "}", a
	// comma, the overrides without their first "{".
	i := strings.Index(overrides, "{")
	if i < 0 || strings.TrimSpace(overrides[:i]) != "" {
		return "", errors.New("installConfigOverrides must start with {")
	}
	out := base[:len(base)-1] + "," + overrides[i+1:]
	if !json.Valid([]byte(out)) {
		return "", errors.New("installConfigOverrides cannot be merged into the install-config overrides; check its JSON")
	}
	return out, nil
}
