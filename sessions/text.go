package sessions

import (
	"fmt"
	"strings"
)

// Text is the session as braid sessions prints it: its name, state and
// count, then its pins.
func (s *Info) Text() string {
	var b strings.Builder
	state := "stopped"
	switch {
	case s.Current:
		state = "current"
	case s.Active:
		state = "started"
	}
	if s.Watch {
		state += ", watched"
	}
	fmt.Fprintf(&b, "%s  (%s; %d documents)", s.Name, state, s.Documents)
	if s.Description != "" {
		fmt.Fprintf(&b, "  %s", s.Description)
	}
	b.WriteByte('\n')
	for _, p := range s.Pins {
		fmt.Fprintf(&b, "  pin %s\n", p)
	}
	return b.String()
}

// List is the sessions as braid sessions lists them.
type List []Info

// Text is one paragraph a session, or a line saying there are none.
func (l List) Text() string {
	if len(l) == 0 {
		return "no sessions; braid sessions start NAME starts one\n"
	}
	var b strings.Builder
	for i := range l {
		b.WriteString(l[i].Text())
	}
	return b.String()
}

// Text is what Pin or Unpin did, then the session.
func (p *Pinned) Text() string {
	changed := "nothing changed"
	if len(p.Changed) > 0 {
		changed = "changed " + strings.Join(p.Changed, ", ")
	}
	return fmt.Sprintf("%s; the pins given select %d indexed documents now\n%s", changed, p.Matched, p.Info.Text())
}
