package doctor

// SlowNoteFor is SlowNote for a cross-encoder of the given spec.
var SlowNoteFor = slowNote
