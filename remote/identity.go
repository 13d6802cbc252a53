package remote

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"tailscale.com/client/tailscale/apitype"
	"tailscale.com/tailcfg"
)

// device is one of the person's devices, as WhoIs names it.
type device struct {
	ID    tailcfg.StableNodeID
	Name  string // its node name
	Login string // the login that owns it
}

// who names the device and its login, for the run's record: "phone (alice@example.com)".
func (d device) who() string { return fmt.Sprintf("%s (%s)", d.Name, d.Login) }

// refusal is a request refused before any handling.
type refusal struct {
	code int
	text string // what the requester reads
	log  string // segwi's log line, naming the node and login
}

// otherDevices ends every refusal of this machine's own requests: the run's own browser
// is the case it is written for.
const otherDevices = "Answers come only from your other devices: open this page on your phone or on another computer of yours in your tailnet."

// judge decides whether the device that WhoIs named in who may use the page of self, with
// these owners (empty: self's owner).
func judge(who *apitype.WhoIsResponse, self Node, owners []string) (device, *refusal) {
	n, user := who.Node, who.UserProfile
	if n == nil {
		return device{}, notThroughTailnet("WhoIs named no node")
	}
	d := device{ID: n.StableID, Name: nodeName(n)}
	if user != nil {
		d.Login = user.LoginName
	}
	switch {
	case n.StableID == self.ID:
		return d, &refusal{code: http.StatusForbidden,
			text: "segwi: this request comes from this machine itself (node " + d.Name + "), where the runs are: " +
				"a browser or program that a run starts could answer its own approvals. " + otherDevices,
			log: fmt.Sprintf("refused node %s (%s): it is this machine's own node, where the runs are", d.Name, d.Login)}
	case n.IsTagged():
		return d, &refusal{code: http.StatusForbidden,
			text: "segwi: this request comes from a tagged node (" + d.Name + "), which no person owns: " +
				"answers come only from the owner's own devices.",
			log: fmt.Sprintf("refused node %s (tags %s): a tagged node has no owner", d.Name, strings.Join(n.Tags, ", "))}
	case d.Login == "" || !isOwner(d.Login, self, owners):
		return d, &refusal{code: http.StatusForbidden,
			text: "segwi: " + d.Login + " may not answer this machine's approvals: only its owner's devices may.",
			log:  fmt.Sprintf("refused node %s (%s): not an owner allowed by segwi.remote.owners", d.Name, d.Login)}
	}
	return d, nil
}

// notThroughTailnet is the refusal of a connection that WhoIs cannot name: it did not come
// through the tailnet (a program on this machine, on loopback), so it is this machine's.
func notThroughTailnet(why string) *refusal {
	return &refusal{code: http.StatusForbidden,
		text: "segwi: this request did not come through your tailnet, so it comes from this machine itself, where the runs are. " + otherDevices,
		log:  "refused a connection that did not come through the tailnet (" + why + ")"}
}

// isOwner reports whether login may answer: one of owners, or self's owner when owners is
// empty. Logins compare without regard to case, as the tailnet's do.
func isOwner(login string, self Node, owners []string) bool {
	if len(owners) == 0 {
		return self.Login != "" && strings.EqualFold(login, self.Login)
	}
	return slices.ContainsFunc(owners, func(o string) bool { return strings.EqualFold(o, login) })
}

// nodeName is a node's name as tailscale shows it: its MagicDNS base name, else its host
// name.
func nodeName(n *tailcfg.Node) string {
	if n.ComputedName != "" {
		return n.ComputedName
	}
	if name, _, _ := strings.Cut(n.Name, "."); name != "" {
		return name
	}
	return n.Hostinfo.Hostname()
}
