package runs

import (
	"fmt"
	"strings"
)

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
