package changes

import "github.com/segwi/segwi/runs/record"

// What a run's changes are as segwi records and shows them (the Base it counts from, the
// changed Files and their Patch, a commit made of them) is declared in package record, a
// leaf the window program links without this package's git; these are its names here.
type (
	Base          = record.Base
	CommitOptions = record.CommitOptions
	Committed     = record.Committed
	Patch         = record.Patch
	Status        = record.Status
	File          = record.File
	CommitRef     = record.CommitRef
)

const (
	MaxDirty     = record.MaxDirty
	MaxTextBytes = record.MaxTextBytes
	Added        = record.Added
	Modified     = record.Modified
	Deleted      = record.Deleted
	Renamed      = record.Renamed
	TypeChanged  = record.TypeChanged
)

var (
	ErrNothingToCommit = record.ErrNothingToCommit
)
