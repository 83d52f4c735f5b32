package grep_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/grep"
)

func Example() {
	dir, err := os.MkdirTemp("", "grep-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	notes := map[string]string{
		"inbox.md": "# Inbox\n- [ ] call Ada\n- [x] read [[Braid]]\n",
		"todo.md":  "nothing here\n",
		"braid.md": "Braid links [[Inbox]]\nand [[todo]].\n",
	}
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
	var files []grep.File
	for _, name := range []string{"braid.md", "inbox.md", "todo.md"} {
		files = append(files, grep.File{Path: filepath.Join(dir, name), Name: name})
	}

	m, err := grep.Compile(`\[\[[a-z]+\]\]`, grep.Options{IgnoreCase: true, After: 1})
	if err != nil {
		panic(err)
	}
	f := &grep.Format{WithFilename: true, LineNumbers: true, After: 1}
	err = m.Search(context.Background(), files, 0, func(r grep.Result) error {
		if r.Err != nil {
			return r.Err
		}
		return f.Write(os.Stdout, r)
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// braid.md:1:Braid links [[Inbox]]
	// braid.md:2:and [[todo]].
	// --
	// inbox.md:3:- [x] read [[Braid]]
}

func ExampleCompile() {
	_, err := grep.Compile(`[[`, grep.Options{})
	fmt.Println(err)
	// Output:
	// grep: bad pattern "[[": missing closing ]; write an RE2 regular expression and escape metacharacters such as ( [ { . * + ? with \ to match them literally
}

func ExampleFormat_Write() {
	f := &grep.Format{WithFilename: true, Count: true}
	r := grep.Result{File: grep.File{Name: "notes.md"}, Count: 3}
	if err := f.Write(os.Stdout, r); err != nil {
		panic(err)
	}
	// Output:
	// notes.md:3
}
