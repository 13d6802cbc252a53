package runs

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/segwi/segwi/runs/record"
)

// A run's record (its Info and Events and their parts, its State, Kind, Budget and Usage),
// reading it back (Load, List, ReadEvents, Summaries) and its words (Narrator, Story) are
// declared in package record, a leaf that the window program links without this engine;
// these are their names here.
type (
	Budget       = record.Budget
	BudgetRaise  = record.BudgetRaise
	BudgetInfo   = record.BudgetInfo
	Conversation = record.Conversation
	Damaged      = record.Damaged
	EventType    = record.EventType
	Event        = record.Event
	InitInfo     = record.InitInfo
	MCPServer    = record.MCPServer
	ResultInfo   = record.ResultInfo
	Denial       = record.Denial
	StateChange  = record.StateChange
	ExitInfo     = record.ExitInfo
	ApprovalInfo = record.ApprovalInfo
	ProcessInfo  = record.ProcessInfo
	Words        = record.Words
	Narrator     = record.Narrator
	Kind         = record.Kind
	Info         = record.Info
	PullRequest  = record.PullRequest
	Spec         = record.Spec
	State        = record.State
	Story        = record.Story
	Said         = record.Said
	Approved     = record.Approved
	Subscriber   = record.Subscriber
	Summary      = record.Summary
	Usage        = record.Usage
	ModelUsage   = record.ModelUsage
	UsageInfo    = record.UsageInfo
	RunUsage     = record.RunUsage
	DayUsage     = record.DayUsage
	UsageBy      = record.UsageBy
	UsageRow     = record.UsageRow
	UsageReport  = record.UsageReport
	WaitReason   = record.WaitReason
	Where        = record.Where
)

const (
	RunsTrailer          = record.RunsTrailer
	EventInit            = record.EventInit
	EventText            = record.EventText
	EventToolCall        = record.EventToolCall
	EventToolResult      = record.EventToolResult
	EventRefusal         = record.EventRefusal
	EventStatus          = record.EventStatus
	EventResult          = record.EventResult
	EventUsage           = record.EventUsage
	EventRaw             = record.EventRaw
	EventPrompt          = record.EventPrompt
	EventOutput          = record.EventOutput
	EventState           = record.EventState
	EventExit            = record.EventExit
	EventApprovalRequest = record.EventApprovalRequest
	EventApprovalAnswer  = record.EventApprovalAnswer
	EventBudget          = record.EventBudget
	EventDropped         = record.EventDropped
	TextFromACP          = record.TextFromACP
	MaxFieldBytes        = record.MaxFieldBytes
	EventCapped          = record.EventCapped
	EventLeftover        = record.EventLeftover
	EventPush            = record.EventPush
	EventBase            = record.EventBase
	KindBuild            = record.KindBuild
	KindReady            = record.KindReady
	KindAsk              = record.KindAsk
	ReadyPrompt          = record.ReadyPrompt
	AskPrefix            = record.AskPrefix
	EventCommit          = record.EventCommit
	EventPullRequest     = record.EventPullRequest
	EventContinued       = record.EventContinued
	StateQueued          = record.StateQueued
	StateStarting        = record.StateStarting
	StateRunning         = record.StateRunning
	StateWaiting         = record.StateWaiting
	StateStopping        = record.StateStopping
	StateSucceeded       = record.StateSucceeded
	StateFailed          = record.StateFailed
	StateStopped         = record.StateStopped
	StateTimedOut        = record.StateTimedOut
	StateInterrupted     = record.StateInterrupted
	SummaryTaskRunes     = record.SummaryTaskRunes
	UsageByDay           = record.UsageByDay
	UsageByRepository    = record.UsageByRepository
	UsageByRuntime       = record.UsageByRuntime
	WaitApproval         = record.WaitApproval
	WaitReply            = record.WaitReply
	WaitBudget           = record.WaitBudget
	WhereDefault         = record.WhereDefault
	WhereCheckout        = record.WhereCheckout
	WhereWorktree        = record.WhereWorktree
	EventWorktree        = record.EventWorktree
	EventSetup           = record.EventSetup
	EventPorts           = record.EventPorts
)

var (
	KeepAll        = record.KeepAll
	ErrBudget      = record.ErrBudget
	ErrNotFound    = record.ErrNotFound
	ErrAskRun      = record.ErrAskRun
	ErrNoSession   = record.ErrNoSession
	ErrInputClosed = record.ErrInputClosed
	ErrNotRunning  = record.ErrNotRunning
	ErrClosed      = record.ErrClosed
	UsageGroupings = record.UsageGroupings
)

// OutputEvent is record.OutputEvent.
func OutputEvent(line []byte) Event { return record.OutputEvent(line) }

// RawEvent is record.RawEvent.
func RawEvent(js []byte) Event { return record.RawEvent(js) }

// RawEventOf is record.RawEventOf.
func RawEventOf(v any) Event { return record.RawEventOf(v) }

// CostText is record.CostText.
func CostText(usd float64) string { return record.CostText(usd) }

// ParseBudgetCost is record.ParseBudgetCost.
func ParseBudgetCost(s string) (float64, error) { return record.ParseBudgetCost(s) }

// ParseBudgetCount is record.ParseBudgetCount.
func ParseBudgetCount(s string) (int64, error) { return record.ParseBudgetCount(s) }

// BudgetText is record.BudgetText.
func BudgetText(in Info) string { return record.BudgetText(in) }

// CheckoutDir is record.CheckoutDir.
func CheckoutDir(dir string) (string, error) { return record.CheckoutDir(dir) }

// LoadConversation is record.LoadConversation.
func LoadConversation(stateDir, id string) (Conversation, error) {
	return record.LoadConversation(stateDir, id)
}

// ConversationOf is record.ConversationOf.
func ConversationOf(stateDir string, info Info) Conversation {
	return record.ConversationOf(stateDir, info)
}

// WithTrailer is record.WithTrailer.
func WithTrailer(msg, trailer string) string { return record.WithTrailer(msg, trailer) }

// GroupConversations is record.GroupConversations.
func GroupConversations(sums []Summary) [][]Summary { return record.GroupConversations(sums) }

// FormatEvent is record.FormatEvent.
func FormatEvent(e Event) string { return record.FormatEvent(e) }

// BaseText is record.BaseText.
func BaseText(b *record.Base) string { return record.BaseText(b) }

// Summaries is record.Summaries.
func Summaries(stateDir string) ([]Summary, []Damaged, error) { return record.Summaries(stateDir) }

// ParseKind is record.ParseKind.
func ParseKind(s string) (Kind, error) { return record.ParseKind(s) }

// RunsDir is record.RunsDir.
func RunsDir(stateDir string) string { return record.RunsDir(stateDir) }

// List is record.List.
func List(stateDir string) (infos []Info, damaged []Damaged, err error) { return record.List(stateDir) }

// Load is record.Load.
func Load(stateDir, id string) (Info, error) { return record.Load(stateDir, id) }

// ReadEvents is record.ReadEvents.
func ReadEvents(stateDir, id string, fn func(Event) error) error {
	return record.ReadEvents(stateDir, id, fn)
}

// CommitText is record.CommitText.
func CommitText(c record.Committed) string { return record.CommitText(c) }

// ReadStory is record.ReadStory.
func ReadStory(stateDir string, c Conversation) Story { return record.ReadStory(stateDir, c) }

// NewSubscriber is record.NewSubscriber.
func NewSubscriber(backlog []Event) *Subscriber { return record.NewSubscriber(backlog) }

// SummaryOf is record.SummaryOf.
func SummaryOf(info Info) Summary { return record.SummaryOf(info) }

// WorkTitle is record.WorkTitle.
func WorkTitle(info Info) string { return record.WorkTitle(info) }

// UsageText is record.UsageText.
func UsageText(u Usage) string { return record.UsageText(u) }

// Thousands is record.Thousands.
func Thousands(n int64) string { return record.Thousands(n) }

// UsageOfDay is record.UsageOfDay.
func UsageOfDay(stateDir string, day time.Time) (DayUsage, error) {
	return record.UsageOfDay(stateDir, day)
}

// ParseUsageBy is record.ParseUsageBy.
func ParseUsageBy(s string) (UsageBy, error) { return record.ParseUsageBy(s) }

// SumUsage is record.SumUsage.
func SumUsage(sums []Summary, since time.Time, by UsageBy, loc *time.Location) UsageReport {
	return record.SumUsage(sums, since, by, loc)
}

// ParseWhere is record.ParseWhere.
func ParseWhere(s string) (Where, error) { return record.ParseWhere(s) }

// WorktreeText is record.WorktreeText.
func WorktreeText(w *record.Worktree) string { return record.WorktreeText(w) }

// What the engine uses of package record under the names it had here.
const (
	waitingForApproval = record.WaitingForApproval
	waitingForReply    = record.WaitingForReply
	waitingAtBudget    = record.WaitingAtBudget
)

func signalWords(sig syscall.Signal) string { return record.SignalWords(sig) }

// The files of a run's folder.
const (
	infoFile   = record.InfoFile
	eventsFile = record.EventsFile
	outputFile = record.OutputFile
	lockFile   = record.LockFile
)

type indexEntry = record.IndexEntry

func readInfo(dir string) (Info, error)                          { return record.ReadInfo(dir) }
func readInfoStat(dir string) (Info, fs.FileInfo, error)         { return record.ReadInfoStat(dir) }
func findRun(stateDir, id string) (string, error)                { return record.FindRun(stateDir, id) }
func lockRun(dir string) (*os.File, error)                       { return record.LockRun(dir) }
func damagedIn(stateDir string, err error) []Damaged             { return record.DamagedIn(stateDir, err) }
func unwrapPath(err error) error                                 { return record.UnwrapPath(err) }
func loadIndex(stateDir string) ([]indexEntry, []Damaged, error) { return record.LoadIndex(stateDir) }
func cutFields(e *Event)                                         { record.CutFields(e) }
func plural(n int, what string) string                           { return record.Plural(n, what) }
func oneLine(s string, max int) string                           { return record.OneLine(s, max) }

const subscriberBuffer = record.SubscriberBuffer
