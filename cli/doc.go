// Package cli is braid's command-line front end: the kong command tree
// (one struct per command, with its flags), each command's Run, which
// opens the engine through the root package and calls it, and what the
// command prints (its --json, else the text the result's package gives
// it). cmd/braid's main only calls Run, as cashapp/hermit's app package
// and cmd/hermit do.
//
// It is the second front end over the root package's API, beside
// mcpserver, and imports the root package and leaf packages (bench,
// bucket, eval, grep, model, prompts, internal/relay), never index/ or
// vector/. Library errors name options (SourceSpec.MaxFileSize);
// optionFlags turns them into the flags a user types. braid serve runs
// other braid processes' commands inside itself (forward.go): a command
// started while a server holds the index hands itself over and runs on
// the server's engine.
//
// Run never exits the process and never writes to os.Stdout or
// os.Stderr directly, so tests drive it in-process; the commands that
// read input read os.Stdin.
package cli
