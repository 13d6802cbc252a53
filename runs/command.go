package runs

import (
	"fmt"
	"strings"
)

// Kind is what a run is for; it decides the prompt, and what the agent may do (an ask
// run's runtime takes the tools that change files away).
type Kind string

// The run kinds of DESIGN.md.
const (
	KindBuild Kind = "build" // the person's task
	KindReady Kind = "ready" // get the current branch ready for review
	KindAsk   Kind = "ask"   // answer a question, changing nothing
)

// ParseKind returns the Kind named s, or an error that lists the kinds.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case KindBuild, KindReady, KindAsk:
		return k, nil
	}
	return "", fmt.Errorf("unknown run kind %q: use build, ready or ask", s)
}

// holdsCheckout says whether a run of this kind may change its checkout, and so must not
// share it with another such run.
func (k Kind) holdsCheckout() bool { return k != KindAsk }

// ReadyPrompt is what a ready run asks for; the person's notes follow it.
const ReadyPrompt = "Get the current branch ready for review: run the project's checks " +
	"(build, tests, linters), fix what fails, and finish with a short summary of what you " +
	"ran, what you fixed and anything left for a person."

// AskPrefix comes before the person's question in an ask run.
const AskPrefix = "Answer the question below without changing anything: do not create, " +
	"edit or delete files, do not commit, and do not run commands that modify this checkout " +
	"or anything else. Only read and inspect.\n\nQuestion: "

// promptFor returns the first message of a run of kind k, from what the person typed (the
// task, the question, or a ready run's optional notes).
func promptFor(k Kind, text string) (string, error) {
	text = strings.TrimSpace(text)
	switch k {
	case KindBuild:
		if text == "" {
			return "", fmt.Errorf("a build run needs a task: say what Claude Code should do")
		}
		return text, nil
	case KindAsk:
		if text == "" {
			return "", fmt.Errorf("an ask run needs a question")
		}
		return AskPrefix + text, nil
	case KindReady:
		if text == "" {
			return ReadyPrompt, nil
		}
		return ReadyPrompt + "\n\nNotes from the person:\n" + text, nil
	}
	return "", fmt.Errorf("unknown run kind %q: use build, ready or ask", k)
}

// droppedEnv are removed from every run's environment: the retired IBNI_* variables and
// segwi's own, which are set afresh (or, for outsideRunEnv, never).
var droppedEnv = []string{
	"IBNI_LAUNCH_CHECKOUT", "IBNI_LOCK_ROOT", "IBNI_BRANCH_PREFIXES", "IBNI_SKIP_SWEEP",
	"IBNI_DEFER_SETUP", "SEGWI_RUN_ID", "SEGWI_RUN_KIND", outsideRunEnv,
}

// forgeEnv hold forge tokens, which the agent never gets unless settings say so.
var forgeEnv = []string{"GH_TOKEN", "GITHUB_TOKEN"}

// envFor returns a run's environment: base minus the dropped variables (and the forge
// tokens unless passForge), plus SEGWI_RUN_ID and SEGWI_RUN_KIND.
func envFor(base []string, passForge bool, id string, k Kind) []string {
	env := make([]string, 0, len(base)+2)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if contains(droppedEnv, name) || (!passForge && contains(forgeEnv, name)) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "SEGWI_RUN_ID="+id, "SEGWI_RUN_KIND="+string(k))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
