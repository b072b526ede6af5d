// Package source gives the loop the revisions of a fleet repository and
// takes its status back: a remote Git repository (cloned once into the
// state directory, fetched on an interval and on demand) or a local
// directory watched for changes. Both implement Source.
package source
