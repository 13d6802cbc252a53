package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Version is the version of the channel's messages. Both ends of a connection must speak
// the same one: the tray (segwi) and the window process (segwi-windows) are built and
// installed together, and a page served by the tray is served with it. Raise it with any
// change to the messages that an older build could misread.
const Version = 3

// MaxMessageBytes is the largest message, as JSON text, that the channel carries. A run
// event's text fields are each cut at record.MaxFieldBytes, so events fit well within it
// (see BatchEvents).
const MaxMessageBytes = 4 << 20

// Type names a message on the wire.
type Type string

// The message types. Hello and Reply go both ways; the others go one way, as grouped.
const (
	TypeHello Type = "hello"
	TypeReply Type = "reply"

	// From the tray to its clients.
	TypeRuns         Type = "runs"          // Runs: a snapshot of the runs
	TypeRun          Type = "run"           // Run: one run changed
	TypeRunEvents    Type = "run-events"    // RunEvents: events of a run a client subscribed to
	TypeApprovals    Type = "approvals"     // Approvals: a snapshot of the waiting approvals
	TypeApproval     Type = "approval"      // Approval: a request now waits for a person
	TypeApprovalGone Type = "approval-gone" // ApprovalGone: a request no longer waits
	TypeSettings     Type = "settings"      // SettingsReport: the settings and what is wrong with them
	TypeNotice       Type = "notice"        // Notice: something to tell the person
	TypeShow         Type = "show"          // Show: a request to open a window
	TypePage         Type = "page"          // PageStatus: the approval page, where it is served or why not

	// From a client to the tray: commands.
	TypeStart          Type = "start"
	TypeFollowUp       Type = "follow-up"
	TypeFinish         Type = "finish"
	TypeStop           Type = "stop"
	TypePush           Type = "push"
	TypeAnswer         Type = "answer"
	TypeSaveSettings   Type = "save-settings"
	TypeRemoveRetired  Type = "remove-retired"
	TypeCreateSettings Type = "create-settings"
	TypeSubscribe      Type = "subscribe"
	TypeUnsubscribe    Type = "unsubscribe"
	TypeCheckPush      Type = "check-push"
	TypeConfirmEdit    Type = "confirm-edit"
	TypeKeepEdit       Type = "keep-edit"
	TypeTokenStatus    Type = "token-status"
	TypeSetToken       Type = "set-token"
	TypeDeleteToken    Type = "delete-token"
	TypeCheckToken     Type = "check-token"
	TypeRunCanary      Type = "run-canary"
	TypeStopCanary     Type = "stop-canary"
	TypePlanGuard      Type = "plan-guard"
	TypeSetUpGuard     Type = "set-up-guard"
	TypeQuit           Type = "quit"

	TypeCommit          Type = "commit"            // Commit: commit an ended run's changes
	TypeOpenPullRequest Type = "open-pull-request" // OpenPullRequest: for a run's pushed branch
	TypeContinue        Type = "continue"          // Continue: a new run resuming an ended one's session
	TypeChanges         Type = "changes"           // Changes: what a run changed, and a diff
	TypeRunWindows      Type = "run-windows"       // RunWindows: the run windows open now
	TypeRemoveWorktree  Type = "remove-worktree"   // RemoveWorktree: an ended run's worktree
	TypeRaiseBudget     Type = "raise-budget"      // RaiseBudget: let a run at its budget go on
	TypeInspectWorktree Type = "inspect-worktree"  // InspectWorktree: what removing a run's worktree would lose
)

// A Body is what a message carries: one of this package's message structs.
type Body interface {
	// MessageType returns the type the body travels as.
	MessageType() Type
}

// checker is implemented by the bodies that have required fields.
type checker interface {
	check() error
}

// Message is one message: a body, and an id. A request (a command, or Show) carries an id
// of its sender's, unique on the connection; its Reply carries the same id. Other messages
// have id 0.
type Message struct {
	ID   uint64
	Body Body
}

// direction says who may send a type of message.
type direction int

const (
	both       direction = iota // hello, reply
	fromTray                    // snapshots, events, show
	fromClient                  // commands
)

// kind is what the package knows about one message type.
type kind struct {
	dir     direction
	request bool   // it expects a Reply
	roles   []Role // the client roles that may send it (commands) or receive it (from the tray)
	decode  func(data []byte) (Body, error)
}

// decoder returns the decode func of the body type T.
func decoder[T Body]() func([]byte) (Body, error) {
	return func(data []byte) (Body, error) {
		var v T
		err := json.Unmarshal(data, &v)
		return v, err
	}
}

var (
	everyone   = []Role{RoleWindow, RoleRemote}
	windowOnly = []Role{RoleWindow}
)

// kinds is every message type. A type that is not here is refused.
var kinds = map[Type]kind{
	TypeHello: {dir: both, roles: everyone, decode: decoder[Hello]()},
	TypeReply: {dir: both, roles: everyone, decode: decoder[Reply]()},

	TypeRuns:         {dir: fromTray, roles: everyone, decode: decoder[Runs]()},
	TypeRun:          {dir: fromTray, roles: everyone, decode: decoder[Run]()},
	TypeRunEvents:    {dir: fromTray, roles: windowOnly, decode: decoder[RunEvents]()},
	TypeApprovals:    {dir: fromTray, roles: everyone, decode: decoder[Approvals]()},
	TypeApproval:     {dir: fromTray, roles: everyone, decode: decoder[Approval]()},
	TypeApprovalGone: {dir: fromTray, roles: everyone, decode: decoder[ApprovalGone]()},
	TypeSettings:     {dir: fromTray, roles: windowOnly, decode: decoder[SettingsReport]()},
	TypeNotice:       {dir: fromTray, roles: windowOnly, decode: decoder[Notice]()},
	TypeShow:         {dir: fromTray, request: true, roles: windowOnly, decode: decoder[Show]()},
	TypePage:         {dir: fromTray, roles: windowOnly, decode: decoder[PageStatus]()},

	TypeStart:          {dir: fromClient, request: true, roles: windowOnly, decode: decoder[Start]()},
	TypeFollowUp:       {dir: fromClient, request: true, roles: windowOnly, decode: decoder[FollowUp]()},
	TypeFinish:         {dir: fromClient, request: true, roles: windowOnly, decode: decoder[Finish]()},
	TypeStop:           {dir: fromClient, request: true, roles: windowOnly, decode: decoder[Stop]()},
	TypePush:           {dir: fromClient, request: true, roles: windowOnly, decode: decoder[Push]()},
	TypeAnswer:         {dir: fromClient, request: true, roles: everyone, decode: decoder[Answer]()},
	TypeSaveSettings:   {dir: fromClient, request: true, roles: windowOnly, decode: decoder[SaveSettings]()},
	TypeRemoveRetired:  {dir: fromClient, request: true, roles: windowOnly, decode: decoder[RemoveRetired]()},
	TypeCreateSettings: {dir: fromClient, request: true, roles: windowOnly, decode: decoder[CreateSettings]()},
	TypeSubscribe:      {dir: fromClient, request: true, roles: windowOnly, decode: decoder[Subscribe]()},
	TypeUnsubscribe:    {dir: fromClient, request: true, roles: windowOnly, decode: decoder[Unsubscribe]()},
	TypeCheckPush:      {dir: fromClient, request: true, roles: windowOnly, decode: decoder[CheckPush]()},
	TypeConfirmEdit:    {dir: fromClient, request: true, roles: windowOnly, decode: decoder[ConfirmEdit]()},
	TypeKeepEdit:       {dir: fromClient, request: true, roles: windowOnly, decode: decoder[KeepEdit]()},
	TypeTokenStatus:    {dir: fromClient, request: true, roles: windowOnly, decode: decoder[TokenStatus]()},
	TypeSetToken:       {dir: fromClient, request: true, roles: windowOnly, decode: decoder[SetToken]()},
	TypeDeleteToken:    {dir: fromClient, request: true, roles: windowOnly, decode: decoder[DeleteToken]()},
	TypeCheckToken:     {dir: fromClient, request: true, roles: windowOnly, decode: decoder[CheckToken]()},
	TypeRunCanary:      {dir: fromClient, request: true, roles: windowOnly, decode: decoder[RunCanary]()},
	TypeStopCanary:     {dir: fromClient, request: true, roles: windowOnly, decode: decoder[StopCanary]()},
	TypePlanGuard:      {dir: fromClient, request: true, roles: windowOnly, decode: decoder[PlanGuard]()},
	TypeSetUpGuard:     {dir: fromClient, request: true, roles: windowOnly, decode: decoder[SetUpGuard]()},
	TypeQuit:           {dir: fromClient, request: true, roles: windowOnly, decode: decoder[Quit]()},

	TypeCommit:          {dir: fromClient, request: true, roles: windowOnly, decode: decoder[Commit]()},
	TypeOpenPullRequest: {dir: fromClient, request: true, roles: windowOnly, decode: decoder[OpenPullRequest]()},
	TypeContinue:        {dir: fromClient, request: true, roles: windowOnly, decode: decoder[Continue]()},
	TypeChanges:         {dir: fromClient, request: true, roles: windowOnly, decode: decoder[Changes]()},
	TypeRunWindows:      {dir: fromClient, request: true, roles: windowOnly, decode: decoder[RunWindows]()},
	TypeRemoveWorktree:  {dir: fromClient, request: true, roles: windowOnly, decode: decoder[RemoveWorktree]()},
	TypeRaiseBudget:     {dir: fromClient, request: true, roles: everyone, decode: decoder[RaiseBudget]()},
	TypeInspectWorktree: {dir: fromClient, request: true, roles: windowOnly, decode: decoder[InspectWorktree]()},
}

// IsCommand reports whether t is a command: a request a client sends to the tray.
func (t Type) IsCommand() bool { return kinds[t].dir == fromClient }

// IsRequest reports whether a message of type t expects a Reply.
func (t Type) IsRequest() bool { return kinds[t].request }

// Role is what a client of the tray may do. The server decides it for each connection.
type Role string

// The roles.
const (
	// RoleWindow is the window process the tray started: the person at this desktop. It
	// may send every command and receives every message.
	RoleWindow Role = "window"
	// RoleRemote is the remote approval page: it may only answer approvals and raise the
	// budget of a run that waits at it (the hub refuses the raise of any other run), and
	// receives the runs and the approvals, nothing else.
	RoleRemote Role = "remote"
)

// MaySend reports whether a client of role r may send a message of type t.
func (r Role) MaySend(t Type) bool {
	k, ok := kinds[t]
	return ok && k.dir != fromTray && (k.dir == both || hasRole(k.roles, r))
}

// Receives reports whether the tray sends messages of type t to a client of role r.
func (r Role) Receives(t Type) bool {
	k, ok := kinds[t]
	return ok && k.dir != fromClient && hasRole(k.roles, r)
}

func hasRole(roles []Role, r Role) bool {
	for _, x := range roles {
		if x == r {
			return true
		}
	}
	return false
}

// envelope is a message as it travels.
type envelope struct {
	Type Type            `json:"type"`
	ID   uint64          `json:"id,omitempty"`
	Body json.RawMessage `json:"body"`
}

// Marshal encodes m as one JSON object, without HTML escaping (a command line stays
// greppable: `&&` is not written as \u0026). It fails for a body of an unknown type and
// for one whose required fields are missing.
func Marshal(m Message) ([]byte, error) {
	if m.Body == nil {
		return nil, errors.New("control: marshal: a message without a body")
	}
	t := m.Body.MessageType()
	if _, ok := kinds[t]; !ok {
		return nil, fmt.Errorf("control: marshal: unknown message type %q", t)
	}
	if c, ok := m.Body.(checker); ok {
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("control: marshal %s: %w", t, err)
		}
	}
	body, err := encode(m.Body)
	if err != nil {
		return nil, fmt.Errorf("control: marshal %s: %w", t, err)
	}
	return encode(envelope{Type: t, ID: m.ID, Body: body})
}

// encode is json.Marshal without HTML escaping and without the trailing newline.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// MalformedError is the error of Unmarshal: data is not a message this package knows.
// ID and Type are set when they could be read, so that a request can still be answered.
type MalformedError struct {
	ID   uint64
	Type Type
	Err  error
}

func (e *MalformedError) Error() string {
	if e.Type != "" {
		return fmt.Sprintf("control: malformed %s message: %v", e.Type, e.Err)
	}
	return fmt.Sprintf("control: malformed message: %v", e.Err)
}

func (e *MalformedError) Unwrap() error { return e.Err }

// Unmarshal decodes one message. Its error is a *MalformedError when data is not JSON,
// names an unknown type, has a body that does not decode into that type, or lacks a
// required field.
func Unmarshal(data []byte) (Message, error) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return Message{}, &MalformedError{Err: err}
	}
	k, ok := kinds[env.Type]
	if !ok {
		return Message{}, &MalformedError{ID: env.ID, Err: fmt.Errorf("unknown message type %q", env.Type)}
	}
	if len(env.Body) == 0 || bytes.Equal(env.Body, []byte("null")) {
		return Message{}, &MalformedError{ID: env.ID, Type: env.Type, Err: errors.New("no body")}
	}
	body, err := k.decode(env.Body)
	if err != nil {
		return Message{}, &MalformedError{ID: env.ID, Type: env.Type, Err: err}
	}
	if c, ok := body.(checker); ok {
		if err := c.check(); err != nil {
			return Message{}, &MalformedError{ID: env.ID, Type: env.Type, Err: err}
		}
	}
	if k.request && env.ID == 0 {
		return Message{}, &MalformedError{Type: env.Type, Err: errors.New("a request without an id")}
	}
	return Message{ID: env.ID, Body: body}, nil
}
