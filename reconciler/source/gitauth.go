package source

import (
	"fmt"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"

	"github.com/siteops/siteops/internal/redact"
)

// Environment variables read for credentials a GitAuth does not give by
// file. Their values are secrets: they are never logged nor put in an
// error.
const (
	EnvGitUsername      = "SITEOPS_GIT_USERNAME"
	EnvGitPassword      = "SITEOPS_GIT_PASSWORD"
	EnvGitToken         = "SITEOPS_GIT_TOKEN"
	EnvGitSSHPassphrase = "SITEOPS_GIT_SSH_PASSPHRASE"
)

// defaultTokenUser is the basic-auth user sent with a token: GitHub,
// GitLab and Gitea accept any user with a token as the password.
const defaultTokenUser = "git"

// GitAuth says where the credentials of a Git source are. Files are read
// at every fetch and push, so a rotated secret is picked up.
type GitAuth struct {
	// Username is the https basic-auth user (default $SITEOPS_GIT_USERNAME,
	// or "git" with a token), or the ssh user when the URL names none
	// (default "git").
	Username string
	// PasswordFile holds the https basic-auth password (default
	// $SITEOPS_GIT_PASSWORD).
	PasswordFile string
	// TokenFile holds an https access token (default $SITEOPS_GIT_TOKEN),
	// sent as the basic-auth password, or as "Authorization: Bearer" with
	// BearerToken.
	TokenFile   string
	BearerToken bool
	// SSHKeyFile is the private key for ssh URLs; SSHPassphraseFile its
	// passphrase (default $SITEOPS_GIT_SSH_PASSPHRASE). Without a key the
	// ssh agent is used.
	SSHKeyFile        string
	SSHPassphraseFile string
	// KnownHostsFile lists the ssh host keys accepted (default
	// $SSH_KNOWN_HOSTS, then ~/.ssh/known_hosts).
	KnownHostsFile string
}

// secret reads a credential from file, else from the environment
// variable env. what names it in errors.
// The value is registered with the redactor: it is hidden wherever it
// could be printed (an error a server sends back, a log line).
func secret(file, env, what string) (string, error) {
	if file == "" {
		v := os.Getenv(env)
		redact.Register(v)
		return v, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("read the git %s file: %w", what, err)
	}
	v := strings.TrimRight(string(data), "\r\n")
	redact.Register(v)
	return v, nil
}

// method builds the go-git credentials for url; nil means none.
func (a GitAuth) method(url string) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return nil, fmt.Errorf("parse repository URL %s: %w", redact.URL(url), err)
	}
	switch ep.Protocol {
	case "http", "https":
		return a.httpMethod()
	case "ssh":
		return a.sshMethod(ep.User)
	}
	return nil, nil
}

func (a GitAuth) httpMethod() (transport.AuthMethod, error) {
	token, err := secret(a.TokenFile, EnvGitToken, "token")
	if err != nil {
		return nil, err
	}
	user := a.Username
	if user == "" {
		user = os.Getenv(EnvGitUsername)
	}
	if token != "" {
		if a.BearerToken {
			return &githttp.TokenAuth{Token: token}, nil
		}
		if user == "" {
			user = defaultTokenUser
		}
		return &githttp.BasicAuth{Username: user, Password: token}, nil
	}
	password, err := secret(a.PasswordFile, EnvGitPassword, "password")
	if err != nil {
		return nil, err
	}
	if user == "" && password == "" {
		return nil, nil
	}
	return &githttp.BasicAuth{Username: user, Password: password}, nil
}

func (a GitAuth) sshMethod(urlUser string) (transport.AuthMethod, error) {
	user := urlUser
	if user == "" {
		user = a.Username
	}
	if user == "" {
		user = defaultTokenUser
	}
	if a.SSHKeyFile == "" {
		agent, err := gitssh.NewSSHAgentAuth(user)
		if err != nil {
			return nil, fmt.Errorf("no ssh key given and no ssh agent: %w", err)
		}
		if err := a.knownHosts(&agent.HostKeyCallbackHelper); err != nil {
			return nil, err
		}
		return agent, nil
	}
	passphrase, err := secret(a.SSHPassphraseFile, EnvGitSSHPassphrase, "ssh passphrase")
	if err != nil {
		return nil, err
	}
	keys, err := gitssh.NewPublicKeysFromFile(user, a.SSHKeyFile, passphrase)
	if err != nil {
		return nil, fmt.Errorf("read the ssh key %s: %w", a.SSHKeyFile, err)
	}
	if err := a.knownHosts(&keys.HostKeyCallbackHelper); err != nil {
		return nil, err
	}
	return keys, nil
}

// knownHosts sets the host-key check from KnownHostsFile; without one,
// go-git's default ($SSH_KNOWN_HOSTS, ~/.ssh/known_hosts) applies.
func (a GitAuth) knownHosts(h *gitssh.HostKeyCallbackHelper) error {
	if a.KnownHostsFile == "" {
		return nil
	}
	cb, err := gitssh.NewKnownHostsCallback(a.KnownHostsFile)
	if err != nil {
		return fmt.Errorf("read the ssh known hosts %s: %w", a.KnownHostsFile, err)
	}
	h.HostKeyCallback = cb
	return nil
}

// hint says, for an authentication error, which credentials to check.
func (a GitAuth) hint() string {
	switch {
	case a.TokenFile != "":
		return "check the token in " + a.TokenFile
	case a.PasswordFile != "":
		return "check the user and the password in " + a.PasswordFile
	case a.SSHKeyFile != "":
		return "check that the key " + a.SSHKeyFile + " may read and push to the repository"
	case os.Getenv(EnvGitToken) != "":
		return "check the token in $" + EnvGitToken
	case os.Getenv(EnvGitPassword) != "":
		return "check the user and the password in $" + EnvGitUsername + " and $" + EnvGitPassword
	}
	return "no credentials were given: give a token file, a user and a password file, or an ssh key (or $" +
		EnvGitToken + ", $" + EnvGitUsername + " and $" + EnvGitPassword + ")"
}
