// Package remote serves the approval page on the tailnet: the person answers a run's
// approvals from their phone or another of their devices, and nobody and nothing else can.
//
// The page is off unless segwi.remote.enabled is set. A Server learns this machine's node
// from the running tailscaled (tailscale.com/client/local: Status, then the IPN bus for
// each change) and listens only where that node is reachable: on its tailnet addresses
// with a TUN device, or, in userspace networking, on 127.0.0.1, where tailscaled hands
// over the tailnet's connections and WhoIs still names their senders. Never on 0.0.0.0.
//
// Every request passes the guard before any handling: WhoIs must name a node that is not
// this machine's own (the mark on a run's own browser: whatever a run starts here reaches
// the page only as this node, or not through the tailnet at all), not tagged, and owned by
// an allowed login (segwi.remote.owners, else this node's owner); the Host must be one of
// this machine's MagicDNS names or tailnet addresses with the port; an answer must carry
// the page's own Origin and its session's anti-forgery token, and a small body. Bodies,
// reads, writes and connections are bounded; no CORS header is ever sent.
//
// The page is a client of the core's control channel, like the window process: one
// connection per device, with control.RoleRemote (it may only answer approvals, and hears
// only of runs and approvals) and the device's node name and login as who answers, which
// the run records. What a connection hears reaches the device's pages as server-sent
// events; an answer is a control.Answer, and the first answer wins, from any client. A
// run that waits at its budget can be raised from the page (control.RaiseBudget, which the
// hub takes from the page only while the run waits at its budget, once), as its run
// window raises it. Nothing on the page starts a run, changes settings or pushes.
package remote
