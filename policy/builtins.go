package policy

import (
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	ignition "github.com/coreos/ignition/v2/config"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"
	"golang.org/x/crypto/ssh"
)

// siteops.ignition_errors(text) -> [string] parses an Ignition config of
// any version Ignition v2 knows (3.0 to 3.5, translated to the latest) and
// validates it, returning every error as "error at $.path, line L col C:
// message"; an empty array means the config is valid. Warnings are left
// out: Ignition itself runs configs that only have warnings. Which versions
// a consumer accepts (assisted-service takes 3.1 and 3.2) is for the rule
// to say, not this function.
var ignitionErrorsBuiltin = &ast.Builtin{
	Name:        "siteops.ignition_errors",
	Description: "Parses and validates an Ignition config; returns its errors (empty when valid).",
	Decl: types.NewFunction(
		types.Args(types.Named("config", types.S).Description("Ignition config JSON")),
		types.Named("errors", types.NewArray(nil, types.S)).Description("the problems found"),
	),
}

// ignitionCache remembers results by config text: fleets share overrides
// (one template written into every site), and parsing and validating is
// the costliest thing a rule does. It is bounded and shared by every
// evaluation of one engine.
type ignitionCache struct {
	mu sync.Mutex
	m  map[string]*ast.Term
}

const ignitionCacheSize = 1024

func (c *ignitionCache) errors(text string) *ast.Term {
	c.mu.Lock()
	t, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return t
	}
	t = ast.ArrayTerm(ignitionErrors(text)...)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= ignitionCacheSize {
		c.m = make(map[string]*ast.Term, ignitionCacheSize)
	}
	c.m[text] = t
	c.mu.Unlock()
	return t
}

// ignitionErrors returns the problems of an Ignition config as terms.
func ignitionErrors(text string) []*ast.Term {
	_, rpt, err := ignition.Parse([]byte(text))
	var out []*ast.Term
	for _, e := range rpt.Entries {
		if e.Kind.IsFatal() {
			out = append(out, ast.StringTerm(e.String()))
		}
	}
	if err != nil && len(out) == 0 {
		out = append(out, ast.StringTerm(err.Error()))
	}
	return out
}

// ignitionFunction is the implementation registered with each prepared query.
func (c *ignitionCache) function() func(*rego.Rego) {
	return rego.Function1(&rego.Function{
		Name: ignitionErrorsBuiltin.Name,
		Decl: ignitionErrorsBuiltin.Decl,
	}, func(_ rego.BuiltinContext, text *ast.Term) (*ast.Term, error) {
		s, ok := text.Value.(ast.String)
		if !ok {
			return nil, nil // undefined, like a built-in given the wrong type
		}
		return c.errors(string(s)), nil
	})
}

// siteops.ssh_key_error(text) -> string checks an SSH public key setting
// (sshPublicKey, which becomes the AgentClusterInstall's sshPublicKey and
// the InfraEnv's sshAuthorizedKey) as assisted-service does before it
// accepts either (internal/cluster/validations ValidateSSHPublicKey): the
// text, trimmed, is split into lines, and every line must be
// "<type> <base64 key data>[ comment]" with one of the types it accepts,
// separated by single spaces (no options, no blank or comment lines), and
// must parse with golang.org/x/crypto/ssh.ParseAuthorizedKey, the declared
// type matching the key data. It returns "" when the text is valid, else
// what is wrong with the first bad line, naming the line when the text has
// several. The message never quotes the text: a private key pasted by
// mistake must not end up in CI logs.
//
// Unlike siteops.ignition_errors it needs nothing from an engine, so it is
// registered globally: ast.CapabilitiesForThisVersion, which the sandbox
// starts from, then lists it, and evaluation finds its implementation.
var sshKeyErrorBuiltin = &rego.Function{
	Name:        "siteops.ssh_key_error",
	Description: "Checks SSH public keys as assisted-service does; returns what is wrong, or \"\" when every line is a key it accepts.",
	Decl: types.NewFunction(
		types.Args(types.Named("keys", types.S).Description("SSH public keys, one per line")),
		types.Named("error", types.S).Description(`"" when valid`),
	),
}

func init() {
	rego.RegisterBuiltin1(sshKeyErrorBuiltin, func(_ rego.BuiltinContext, text *ast.Term) (*ast.Term, error) {
		s, ok := text.Value.(ast.String)
		if !ok {
			return nil, nil // undefined, like a built-in given the wrong type
		}
		return sshKeyCache.get(string(s)), nil
	})
}

// sshKeyCache remembers results by key text: a fleet usually has one key
// (or a few) for every site. It is bounded like ignitionCache.
var sshKeyCache = &sshKeyResults{}

type sshKeyResults struct {
	mu sync.Mutex
	m  map[string]*ast.Term
}

func (c *sshKeyResults) get(text string) *ast.Term {
	c.mu.Lock()
	t, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return t
	}
	t = ast.StringTerm(sshKeyError(text))
	c.mu.Lock()
	if c.m == nil || len(c.m) >= ignitionCacheSize {
		c.m = make(map[string]*ast.Term, ignitionCacheSize)
	}
	c.m[text] = t
	c.mu.Unlock()
	return t
}

// sshKeyPattern is assisted-service's sshPublicKeyRegex: the key types it
// accepts, each with the start of its key data.
var sshKeyPattern = regexp.MustCompile(`^(ssh-rsa AAAAB3NzaC1yc2|ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNT|` +
	`ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzOD|ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1Mj|` +
	`ssh-ed25519 AAAAC3NzaC1lZDI1NTE5|ssh-dss AAAAB3NzaC1kc3)[0-9A-Za-z+/]+[=]{0,3}( .*)?$`)

// sshKeyTypes are the key types sshKeyPattern accepts.
var sshKeyTypes = []string{ssh.KeyAlgoED25519, ssh.KeyAlgoRSA, ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384, ssh.KeyAlgoECDSA521, ssh.KeyAlgoDSA}

const sshKeyForm = "expected <type> <base64 key data> [comment], with the type ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256, -nistp384 or -nistp521"

// sshKeyError returns what is wrong with SSH public key text, or "".
func sshKeyError(text string) string {
	if strings.Contains(text, "PRIVATE KEY") {
		return "it is a private key; give the public key (the .pub file)"
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, line := range lines {
		if msg := sshLineError(strings.TrimSpace(line)); msg != "" {
			if len(lines) > 1 {
				msg = fmt.Sprintf("line %d: %s", i+1, msg)
			}
			return msg
		}
	}
	return ""
}

// sshLineError returns what is wrong with one line, or "".
func sshLineError(line string) string {
	switch {
	case line == "":
		return "there is no key: every line must hold one (no blank lines)"
	case line[0] == '#':
		return "it is a comment: every line must hold a key"
	}
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return "it is not an SSH public key: " + sshKeyForm
	}
	typ := fields[0]
	if !slices.Contains(sshKeyTypes, typ) {
		if slices.ContainsFunc(fields, func(f string) bool { return slices.Contains(sshKeyTypes, f) }) {
			return "it starts with something other than the key type (authorized_keys options are not accepted): " + sshKeyForm
		}
		return "it names no key type assisted-service accepts: " + sshKeyForm
	}
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if b64 := base64.CorruptInputError(0); errors.As(err, &b64) {
		return fmt.Sprintf("the %s key data is not valid base64 (at byte %d of %d): it is cut short or altered", typ, int64(b64), len(fields[1]))
	}
	pk, err := ssh.ParsePublicKey(blob)
	switch {
	case err != nil:
		return fmt.Sprintf("the %s key data does not parse (%s): it is cut short or altered", typ, strings.TrimPrefix(err.Error(), "ssh: "))
	case pk.Type() != typ:
		return fmt.Sprintf("the line says %s, but the key data is an %s key", typ, pk.Type())
	case !sshKeyPattern.MatchString(line):
		return "the type, the key data and the comment must be separated by single spaces: " + sshKeyForm
	}
	if _, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line)); err != nil {
		msg := strings.TrimPrefix(err.Error(), "ssh: no key found; last parsing error for ignored line: ")
		return "the key does not parse: " + strings.TrimPrefix(msg, "ssh: ")
	}
	return ""
}
