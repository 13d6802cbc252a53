package gitcmd

import (
	"os"
	"slices"
	"strings"
)

// keptGitEnv are the only GIT_* variables of the person's environment that reach git: the
// certificate authorities a person with a company CA sets. Every other GIT_* variable
// would trace what git sends, point it at another repository, configure it, or name a
// program for it to run, and is dropped.
var keptGitEnv = []string{"GIT_SSL_CAINFO", "GIT_SSL_CAPATH"}

// droppedEnv are other variables dropped: forge tokens, and the programs and folders git
// would otherwise take from them.
var droppedEnv = []string{
	"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
	"SSH_ASKPASS", "GCM_INTERACTIVE", "EDITOR", "VISUAL", "PAGER",
	"HOME", "XDG_CONFIG_HOME", "PWD",
}

// CleanEnv returns env without the variables that would redirect, trace, reconfigure git
// or hand it a forge token or a program (every GIT_* variable but the certificate ones),
// without HOME and XDG_CONFIG_HOME, which Seal sets.
func CleanEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(droppedEnv, name) || strings.HasPrefix(name, "GIT_") && !slices.Contains(keptGitEnv, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// sealedEnv are the variables Seal sets: no configuration file at all but the repository's
// own (which segwi writes), no prompt, no program but cat and :, only https.
var sealedEnv = []string{
	"GIT_CONFIG_GLOBAL=" + os.DevNull, // no ~/.gitconfig, no ~/.config/git/config
	"GIT_CONFIG_NOSYSTEM=1",           // no /etc/gitconfig
	"GIT_ATTR_NOSYSTEM=1",             // no /etc/gitattributes
	"HOME=" + os.DevNull,              // nothing under ~ either: no ~/.netrc, no ~/.git-credentials
	"XDG_CONFIG_HOME=" + os.DevNull,   // nor ~/.config/git/attributes or ignore
	"GIT_TERMINAL_PROMPT=0",           // no prompt on a terminal
	"GIT_ASKPASS=",                    // empty: no askpass program, not even core.askPass
	"GCM_INTERACTIVE=never",           // Git Credential Manager, if the person's PATH has it
	"GIT_PAGER=cat",
	"GIT_EDITOR=:",
	"GIT_SEQUENCE_EDITOR=:",
	"GIT_ALLOW_PROTOCOL=https", // no ext::, file::, ssh:: or any other transport
	"GIT_PROTOCOL_FROM_USER=0",
	"GIT_NO_REPLACE_OBJECTS=1",
	"GIT_OPTIONAL_LOCKS=0",
	"GIT_TRACE2=0", "GIT_TRACE2_EVENT=0", "GIT_TRACE2_PERF=0", // no trace2 target, whatever a config says
}

// sealedConfig is the configuration every command gets through its environment
// (GIT_CONFIG_COUNT/KEY/VALUE), which outranks the repository's own file: no program git
// would otherwise start without being asked, no submodule entered, no signing.
var sealedConfig = []string{
	"core.fsmonitor=false",
	"core.hooksPath=" + os.DevNull,
	"core.pager=cat",
	"core.editor=:",
	"sequence.editor=:",
	"core.askPass=",
	"credential.helper=", // an empty helper clears the list
	"core.attributesFile=" + os.DevNull,
	"core.excludesFile=" + os.DevNull,
	"core.untrackedCache=false",
	"core.splitIndex=false",
	"core.safecrlf=false",
	"core.alternateRefsCommand=",
	"commit.gpgSign=false",
	"tag.gpgSign=false",
	"push.gpgSign=false",
	"submodule.recurse=false",
	"push.recurseSubmodules=no",
	"fetch.recurseSubmodules=false",
	"diff.submodule=short",
	"status.submoduleSummary=false",
	"protocol.allow=never",
	"protocol.https.allow=always",
	"http.sslVerify=true",
	"init.templateDir=",
	"index.sparse=false",
	"gc.auto=0",
	"maintenance.auto=false",
	"advice.detachedHead=false",
}

// Seal returns env cleaned (CleanEnv) with the sealed variables set, and its PATH cut to
// the folders only root can change (see program.go). The sealed configuration itself is
// added when a command starts (Git.Env).
func Seal(env []string) []string {
	env = CleanEnv(env)
	sealPath(env)
	return append(env, sealedEnv...)
}
