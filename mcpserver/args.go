package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// ErrBadArgument is wrapped by the error of a tool call whose arguments do
// not fit the tool's schema: an unknown or missing argument, a value of the
// wrong type or out of range.
var ErrBadArgument = errors.New("bad argument")

// argError names the argument at fault and what would fix it.
func argError(name, format string, args ...any) error {
	return fmt.Errorf("%w %s: %s", ErrBadArgument, name, fmt.Sprintf(format, args...))
}

// decodeArgs reads a tool call's arguments (a JSON object, or nothing) into
// a, which holds the defaults. Unknown names are rejected, not ignored: an
// agent that misspells an argument hears so instead of getting an answer
// that silently ignored it. null leaves the default.
func decodeArgs(raw json.RawMessage, a any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] != '{' {
		return fmt.Errorf("%w: arguments must be a JSON object of named arguments", ErrBadArgument)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("%w: arguments are not valid JSON: %v", ErrBadArgument, err)
	}
	// Names match exactly: encoding/json alone would take "Limit" for
	// limit and ignore what it does not know.
	names := argNames(a)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(names, k) {
			takes := "no arguments"
			if len(names) > 0 {
				takes = strings.Join(names, ", ")
			}
			return fmt.Errorf("%w: unknown argument %q; this tool takes %s", ErrBadArgument, k, takes)
		}
	}
	err := json.Unmarshal(raw, a)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		name := te.Field
		if name == "" {
			name = "arguments"
		}
		return argError(name, "got a JSON %s, want %s", te.Value, kindName(te.Type))
	}
	return fmt.Errorf("%w: %v", ErrBadArgument, err)
}

// kindName says in schema words what a Go type takes.
func kindName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(kindName(t.Elem()), "a "), "an ") + "s"
	}
	return t.String()
}

// argNames lists the JSON names of a's fields, sorted.
func argNames(a any) []string {
	t := reflect.TypeOf(a)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// required fails when a required string argument is empty.
func required(name, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%w: %s is required and must not be empty", ErrBadArgument, name)
	}
	return nil
}

// intRange checks lo <= v <= hi.
func intRange(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return argError(name, "%d is out of range; want %d..%d", v, lo, hi)
	}
	return nil
}

// floatRange checks lo <= v <= hi.
func floatRange(name string, v, lo, hi float64, meaning string) error {
	if math.IsNaN(v) || v < lo || v > hi {
		return argError(name, "%v is out of range; want a number from %v to %v%s", v, lo, hi, meaning)
	}
	return nil
}

// oneOf checks that v is one of the allowed values.
func oneOf(name, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return argError(name, "%q is not one of %s", v, strings.Join(allowed, ", "))
}
