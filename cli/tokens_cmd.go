package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/braidsearch/braid/auth"
)

// TokensCmd keeps the token file a team's braid serve signs users in with.
type TokensCmd struct {
	Add    TokensAddCmd    `cmd:"" help:"Make a token for a user and print it once; the file keeps only its hash."`
	List   TokensListCmd   `cmd:"" help:"List the users with a token: name, groups, created (never the token)."`
	Revoke TokensRevokeCmd `cmd:"" help:"Remove a user's token; a server reading the file refuses it from its next request."`
}

// tokensFile is the flag every tokens command takes.
type tokensFile struct {
	File string `required:"" type:"path" placeholder:"FILE" help:"The token file (JSON, mode 0600; braid serve --auth-tokens reads it)."`
}

func (f tokensFile) open() (*auth.Tokens, error) { return auth.OpenTokens(f.File) }

// TokensAddCmd makes a token.
type TokensAddCmd struct {
	Name   string   `arg:"" help:"The user's name, as a policy's \"who\" names it (letters, digits and . _ @ + -)."`
	Groups []string `sep:"," placeholder:"A,B" help:"The groups the user is in, as a policy's \"group:NAME\" names them."`
	tokensFile
}

// Run makes the token and prints it alone on stdout.
func (c *TokensAddCmd) Run(g *Globals) error {
	tk, err := c.open()
	if err != nil {
		return err
	}
	token, err := tk.Add(c.Name, c.Groups)
	if err != nil {
		return err
	}
	if !g.Quiet {
		fmt.Fprintf(g.stderr, "braid: the token of %s is shown this once (the file keeps only its hash); give it to %s to send as Authorization: Bearer TOKEN\n", c.Name, c.Name)
	}
	if g.JSON {
		groups := c.Groups
		if groups == nil {
			groups = []string{}
		}
		return g.printJSON(map[string]any{"name": c.Name, "token": token, "groups": groups})
	}
	_, err = fmt.Fprintln(g.stdout, token)
	return err
}

// TokensListCmd lists the tokens.
type TokensListCmd struct {
	tokensFile
}

// Run lists them.
func (c *TokensListCmd) Run(g *Globals) error {
	tk, err := c.open()
	if err != nil {
		return err
	}
	list, err := tk.List()
	switch {
	case err != nil:
		return err
	case g.JSON:
		return g.printJSON(list)
	case len(list) == 0:
		fmt.Fprintf(g.stderr, "no tokens in %s; add one with braid tokens add NAME --file %s\n", c.File, c.File)
		return nil
	}
	w := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tGROUPS\tCREATED")
	for _, t := range list {
		groups := strings.Join(t.Groups, ",")
		if groups == "" {
			groups = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", t.Name, groups, t.Created.Local().Format(time.DateTime))
	}
	return w.Flush()
}

// TokensRevokeCmd removes a token.
type TokensRevokeCmd struct {
	Name string `arg:"" help:"The user whose token to remove."`
	tokensFile
}

// Run revokes it.
func (c *TokensRevokeCmd) Run(g *Globals) error {
	tk, err := c.open()
	if err != nil {
		return err
	}
	ok, err := tk.Revoke(c.Name)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no token of %s in %s; braid tokens list --file %s shows who has one", c.Name, c.File, c.File)
	}
	return g.print(map[string]any{"revoked": c.Name}, func() string {
		return fmt.Sprintf("revoked the token of %s; a server reading %s refuses it from its next request\n", c.Name, c.File)
	})
}
