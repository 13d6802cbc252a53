package settings

import "slices"

// TrustedChange is an edit of approvals.trusted in the settings file that adds commands
// and did not come from segwi's settings window. segwi keeps the old list in force until
// the person confirms the new one: a trusted command runs without asking, and a run's agent
// can write the settings file. The core decides when there is one; the windows show it.
type TrustedChange struct {
	Old []string // the list the person accepted, in force until they confirm New
	New []string // the list the file now holds
	// Declined is set once the person chose to keep Old; the change is not asked again
	// while the file holds New.
	Declined bool
}

// Added returns the commands of New that are not in Old, in New's order.
func (c TrustedChange) Added() []string { return missingFrom(c.New, c.Old) }

// Removed returns the commands of Old that are not in New, in Old's order.
func (c TrustedChange) Removed() []string { return missingFrom(c.Old, c.New) }

// Same reports whether c and o are the same change: the same old and new lists, whether
// declined or not.
func (c TrustedChange) Same(o TrustedChange) bool {
	return slices.Equal(c.Old, o.Old) && slices.Equal(c.New, o.New)
}

func missingFrom(list, other []string) []string {
	var out []string
	for _, e := range list {
		if !slices.Contains(other, e) {
			out = append(out, e)
		}
	}
	return out
}
