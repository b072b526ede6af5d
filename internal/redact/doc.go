// Package redact is the one place siteops hides credentials before text
// leaves the process: in check and render output, status files and
// commits, log lines, the dashboard and its API, and error messages.
//
// Text hides the user information of every URL in a text (a BMC address
// written as redfish://user:password@host, a repository URL with a token),
// the body of every PEM private key, and every value registered with
// Register: the data of Secrets found beside sites or made by a kustomize
// secretGenerator, and the credentials siteops was given (Git token and
// password files, the webhook secret). Handler applies Text to every
// log record.
package redact
