// Package control is the tray's client API: the typed messages between the tray process,
// which holds the core (settings, runs, approvals), and its clients, and their transport
// over a private stream socket.
//
// The tray process runs all day and shows no windows; the window process (Fyne) is started
// on demand and talks to the tray over one socket pair that the tray creates and the child
// inherits (see StartChild and Inherited): there is no named socket and no port, nothing
// another process can connect to. The same messages are meant for a second client, the
// remote approval page, carried over HTTP instead (one JSON message per request body,
// events as server-sent events, with Marshal and Unmarshal).
//
// # Messages
//
// Every message is a JSON object {"type": ..., "id": ..., "body": {...}} (see Marshal).
// The tray sends snapshots and live events: Runs, Run, RunEvents, Approvals, Approval,
// ApprovalGone, SettingsReport, PageStatus, Notice; and one request, Show, that asks the
// window process to open a window (a menu item, a warning). A client sends commands:
// Start, FollowUp, Finish, Stop, CheckPush, Push, Answer, SaveSettings, RemoveRetired,
// CreateSettings, ConfirmEdit, KeepEdit, TokenStatus, SetToken, DeleteToken, CheckToken,
// RunCanary, StopCanary, PlanGuard, SetUpGuard, Quit, Subscribe, Unsubscribe, Changes,
// Commit, OpenPullRequest, Continue, RunWindows, RemoveWorktree, InspectWorktree (Client has a typed method
// for each).
// Every request carries an id of its sender's and gets one Reply with the same id: ok, or
// an error a person can read, whose Code keeps the sentinel errors callers branch on
// (record.ErrNotRunning, token.ErrNotFound, ...).
//
// # Roles
//
// What a client may send and receive is decided by the server, per connection, as a
// Role, never by what the client says about itself. RoleWindow (the window process the
// tray started) may send every command; RoleRemote (the approval page) may only Answer and
// RaiseBudget (of a run waiting at its budget: the hub checks), and receives runs and
// approvals only: nothing from the network starts, stops or pushes a run, or changes
// settings.
//
// # Connections
//
// Both sides open a connection with a Hello carrying the channel's Version; a mismatch
// ends the connection with a VersionError naming both versions. Messages are framed as a
// 4-byte big-endian length and the JSON text, at most MaxMessageBytes. A malformed message
// gets an error reply and the connection goes on; an oversized one, or one that stalls
// half sent past the I/O timeout, ends that connection only. A client that reads slowly
// holds back the streams sent to it (Peer.AwaitRoom: a run's events, which the tray thins
// out meanwhile) rather than being cut off; one that stops reading altogether is cut off
// once what waits for it passes a bound. A Server serves each client
// on its own connection: one client that misbehaves, stalls or dies never ends the tray
// nor another client.
//
// Its messages carry the types of leaves that hold no engine (runs/record, canary/guard,
// settings, settings/token, approvals), never the engine's: a client, the window process
// included, links nothing that makes runs (app/deps_test.go).
package control
