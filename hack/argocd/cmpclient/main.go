// Command cmpclient drives a running argocd-cmp-server the way Argo CD's
// repo-server does for an Application whose source is a config-management
// plugin (github.com/argoproj/argo-cd reposerver/repository/repository.go,
// runConfigManagementPluginSidecars and populatePluginAppDetails): it finds
// the plugin through util/app/discovery (the plugin's discover rule, or its
// name), checks its configuration, streams the repository as a tarball with
// util/cmp and prints what the plugin answers.
//
//	cmpclient -repo DIR -path APP [-plugin NAME] [-source JSON] [-announce]
//
// The plugin sockets are looked for in $ARGOCD_PLUGINSOCKFILEPATH, as in the
// repo-server. -source is the Application's spec.source.plugin as JSON (env
// and parameters). Without -announce it prints every object Argo CD would
// get, one JSON document a line, split with the same gitops-engine function
// the repo-server uses (-raw: the manifests as returned, one a line); with
// -announce it prints the parameter announcement as JSON. Errors go to stderr, worded as the repo-server wraps them, with
// exit status 1.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/argoproj/gitops-engine/pkg/utils/kube"
	grpc_retry "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"
	log "github.com/sirupsen/logrus"
	"google.golang.org/protobuf/types/known/emptypb"

	pluginclient "github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/app/discovery"
	"github.com/argoproj/argo-cd/v3/util/cmp"
)

func main() {
	repo := flag.String("repo", "", "repository working copy (what the repo-server checked out)")
	appPath := flag.String("path", ".", "the Application's spec.source.path, relative to -repo")
	pluginName := flag.String("plugin", "", "spec.source.plugin.name; empty: discovery")
	source := flag.String("source", "", "spec.source.plugin as JSON (env, parameters)")
	announce := flag.Bool("announce", false, "print the parameter announcement instead of manifests")
	raw := flag.Bool("raw", false, "print the manifests as the plugin returned them, without splitting them into objects")
	timeout := flag.Duration("timeout", 2*time.Minute, "deadline for the whole exchange")
	flag.Parse()
	log.SetLevel(log.WarnLevel)

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *repo, *appPath, *pluginName, *source, *announce, *raw); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, repo, appRel, pluginName, source string, announce, raw bool) error {
	if repo == "" {
		return errors.New("-repo is required")
	}
	repoPath, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	appPath := filepath.Join(repoPath, appRel)

	var plugin v1alpha1.ApplicationSourcePlugin
	if source != "" {
		if err := json.Unmarshal([]byte(source), &plugin); err != nil {
			return fmt.Errorf("-source: %w", err)
		}
	}
	plugin.Name = pluginName
	env, err := pluginEnv(repoPath, appRel, &plugin, announce)
	if err != nil {
		return err
	}

	conn, client, err := discovery.DetectConfigManagementPlugin(ctx, appPath, repoPath, pluginName, env, nil)
	if err != nil {
		return fmt.Errorf("failed to detect CMP for app: %w", err)
	}
	defer conn.Close()

	if announce {
		return printAnnouncement(ctx, client, appPath, repoPath, env)
	}
	if _, err := client.CheckPluginConfiguration(ctx, &emptypb.Empty{}); err != nil {
		return fmt.Errorf("error calling cmp-server checkPluginConfiguration: %w", err)
	}
	stream, err := client.GenerateManifest(ctx, grpc_retry.Disable())
	if err != nil {
		return fmt.Errorf("error getting generateManifestStream: %w", err)
	}
	if err := cmp.SendRepoStream(stream.Context(), appPath, repoPath, stream, env, nil); err != nil {
		return fmt.Errorf("error generating manifests in cmp: error sending file to cmp-server: %w", err)
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return fmt.Errorf("error generating manifests in cmp: %w", err)
	}
	if raw {
		for _, m := range resp.Manifests {
			fmt.Println(m)
		}
		return nil
	}
	out := json.NewEncoder(os.Stdout)
	for _, m := range resp.Manifests {
		objs, err := kube.SplitYAML([]byte(m))
		if err != nil {
			return fmt.Errorf("failed to convert CMP manifests to unstructured objects: %w", err)
		}
		for _, o := range objs {
			if err := out.Encode(o.Object); err != nil {
				return err
			}
		}
	}
	return nil
}

// pluginEnv is the environment the repo-server sends with the tarball:
// the build environment (newEnv, or newEnvRepoQuery for the details the UI
// asks for), the Kubernetes version, then the plugin's env entries as
// ARGOCD_ENV_* and its parameters (getPluginParamEnvs).
func pluginEnv(repoPath, appRel string, plugin *v1alpha1.ApplicationSourcePlugin, details bool) ([]string, error) {
	env := []string{
		"ARGOCD_APP_NAME=" + filepath.Base(filepath.Join(repoPath, appRel)),
		"ARGOCD_APP_SOURCE_REPO_URL=file://" + repoPath,
		"ARGOCD_APP_SOURCE_PATH=" + appRel,
		"ARGOCD_APP_SOURCE_TARGET_REVISION=HEAD",
	}
	if !details {
		env = append(env,
			"ARGOCD_APP_NAMESPACE=argocd",
			"ARGOCD_APP_PROJECT_NAME=default",
			"ARGOCD_APP_REVISION=0000000000000000000000000000000000000000",
			"KUBE_VERSION=1.34.0",
			"KUBE_API_VERSIONS=v1,apps/v1",
		)
	}
	parsed := make(v1alpha1.Env, 0, len(env))
	for _, e := range env {
		entry, err := v1alpha1.NewEnvEntry(e)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, entry)
	}
	for _, e := range plugin.Env {
		env = append(env, fmt.Sprintf("ARGOCD_ENV_%s=%s", e.Name, parsed.Envsubst(e.Value)))
	}
	params, err := plugin.Parameters.Environ()
	if err != nil {
		return nil, fmt.Errorf("failed to generate env vars from parameters: %w", err)
	}
	return append(env, params...), nil
}

func printAnnouncement(ctx context.Context, client pluginclient.ConfigManagementPluginServiceClient, appPath, repoPath string, env []string) error {
	stream, err := client.GetParametersAnnouncement(ctx, grpc_retry.Disable())
	if err != nil {
		return fmt.Errorf("error getting parametersAnnouncementStream: %w", err)
	}
	if err := cmp.SendRepoStream(stream.Context(), appPath, repoPath, stream, env, nil); err != nil {
		return fmt.Errorf("error sending file to cmp-server: %w", err)
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return fmt.Errorf("failed to get parameter announcement: %w", err)
	}
	return json.NewEncoder(os.Stdout).Encode(resp.ParameterAnnouncements)
}
