// Package luahealth runs the Argo CD health checks of
// examples/argocd/health with gopher-lua, the interpreter Argo CD embeds,
// in the sandbox Argo CD gives them (github.com/argoproj/argo-cd
// util/lua/lua.go: the package, base and table libraries only, a global
// obj, one second per run). Its test checks each script against the
// resources captured from the embedded engine, quickly and without
// building Argo CD; examples/argocd tests the same files with Argo CD's
// own command.
package luahealth
