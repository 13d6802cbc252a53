// Package guard is what segwi tells a person of a guard hook (a Claude Code PreToolUse hook
// of their own that refuses what they never want run) and how it sets one up for them: the
// help, the deny file's command, and the files a setup writes. The canary (package canary)
// checks that the hook refuses; the window program shows its help and setup, and links
// this package without the canary's run.
package guard
