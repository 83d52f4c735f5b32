package cli

import "github.com/braidsearch/braid/model"

// brief is model.Brief in the CLI's words (braid.Models.Explain): the
// options and functions it names become flags and commands. Searches
// repeat it in their warnings; braid doctor gives the whole story.
func brief(err error, name string, kind model.Kind) string {
	return optionFlags.Replace(model.Brief(flagError{err}, name, kind))
}

// flagError is an error whose message is in the CLI's words; errors.Is
// sees what it wraps.
type flagError struct{ error }

func (e flagError) Error() string { return optionFlags.Replace(e.error.Error()) }
func (e flagError) Unwrap() error { return e.error }
