package record

// For the tests of package record_test, which run the engine (package runs) over records.
var (
	IndexRun   = indexRun
	WriteIndex = writeIndex
)
