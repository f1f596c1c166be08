package comment

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/internal/markdown"
)

func TestReuseCommands(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    string // the command as String prints it; "" for none
		invalid string // a substring of Invalid
	}{
		{"bare legacy", "/reuse-sweep-run", "/reuse-sweep-run", ""},
		{"pinned legacy", "/reuse-sweep-run 31147925932", "/reuse-sweep-run 31147925932", ""},
		{"use", "/use 37076187881", "/use 37076187881", ""},
		{"surrounding space", "  /use   42  \r\n", "/use 42", ""},
		{"tab between", "/use\t42", "/use 42", ""},
		{"after text", "Final sweep is green.\n\n/use 42\n\nThanks!", "/use 42", ""},
		{"last wins", "/reuse-sweep-run\n/use 7\n/reuse-sweep-run 9", "/reuse-sweep-run 9", ""},
		{"last wins, bare after pinned", "/use 7\n/reuse-sweep-run", "/reuse-sweep-run", ""},
		{"not at line start", "please /use 42", "", ""},
		{"trailing words", "/use 42 please", "", ""},
		{"not a number", "/use abc", "", ""},
		{"negative", "/use -4", "", ""},
		{"prefix of another word", "/reuse-sweep-runs", "", ""},
		{"other command", "/used 4", "", ""},
		{"case matters", "/USE 4", "", ""},
		{"quoted", "> /use 42", "", ""},
		{"quoted, nested", "> > /reuse-sweep-run", "", ""},
		{"quoted, lazy continuation", "> as they said:\n/use 42", "", ""},
		{"quoted then real", "> /use 1\n\n/use 2", "/use 2", ""},
		{"fenced backticks", "```\n/use 42\n```", "", ""},
		{"fenced tildes", "~~~sh\n/reuse-sweep-run\n~~~", "", ""},
		{"fence closed only by its own kind", "```\n~~~\n/use 1\n```\n/use 2", "/use 2", ""},
		{"longer fence needs a longer close", "````\n```\n/use 1\n````\n/use 3", "/use 3", ""},
		{"indented fence", "   ```\n/use 1\n   ```\n/use 4", "/use 4", ""},
		{"unclosed fence hides the rest", "```\n/use 1", "", ""},
		{"after a fence", "```\nx\n```\n/use 5", "/use 5", ""},
		{"indented code block", "Example:\n\n    /use 42\n", "", ""},
		{"indented code block at the start", "    /use 42", "", ""},
		{"tab-indented code block", "Example:\n\n\t/use 42\n", "", ""},
		{"indented in a list item continues it", "- done\n\n    /use 42", "/use 42", ""},
		{"html comment", "<!--\n/use 42\n-->", "", ""},
		{"one-line html comment", "<!-- /use 42 -->\n/use 43", "/use 43", ""},
		{"html comment opened mid-line", "Thanks! <!--\n/use 555\n-->", "", ""},
		{"html comment opened mid-line, closed, then a command", "Thanks! <!--\n/use 555\n-->\n/use 556", "/use 556", ""},
		{"text after a closed comment on its line", "<!-- note --> /use 9", "/use 9", ""},
		{"unclosed html comment hides the rest", "<!-- draft\n\n/use 1", "", ""},
		{"pre block", "<pre>\n/use 42\n</pre>", "", ""},
		{"in a code span", "`/use 42`", "", ""},
		{"bare use", "/use", "/use", "needs the id"},
		{"zero id", "/use 0", "/use", "0 is not a run id"},
		{"overflowing id", "/use 99999999999999999999999", "/use", "too large"},
		{"empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Parse(tt.body, "reviewbot").Reuse
			if (c != nil) != (tt.want != "") {
				t.Fatalf("found = %v, want %v (%+v)", c != nil, tt.want != "", c)
			}
			if c == nil {
				return
			}
			if c.String() != tt.want {
				t.Errorf("command %q, want %q", c.String(), tt.want)
			}
			if (tt.invalid == "") != (c.Invalid == "") || !strings.Contains(c.Invalid, tt.invalid) {
				t.Errorf("invalid %q, want %q", c.Invalid, tt.invalid)
			}
		})
	}
}

// The bot's own commands are read by the same parser: what hides a reuse
// command hides them too.
func TestBotCommands(t *testing.T) {
	tests := []struct {
		body string
		want string
	}{
		{"@reviewbot review", "review"},
		{"  @reviewbot   re-review  ", "re-review"},
		{"Thanks!\n\n@ReviewBot Review\r\n", "review"},
		{"@reviewbot help", "help"},
		{"@reviewbot review please", ""},
		{"please @reviewbot review", ""},
		{"> @reviewbot review", ""},
		{"```\n@reviewbot review\n```", ""},
		{"~~~\n@reviewbot review\n~~~\n@reviewbot re-review", "re-review"},
		{"<!--\n@reviewbot review\n-->", ""},
		{"Looks good <!--\n@reviewbot review\n-->", ""},
		{"Example:\n\n    @reviewbot review", ""},
		{"````\n```\n@reviewbot review\n```\n````", ""},
		{"````md\n```\n```\n@reviewbot review\n````\n@reviewbot help", "help"},
		{"`@reviewbot review`", ""},
		{"@reviewbotx review", ""},
		{"@other review", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Parse(tt.body, "reviewbot").Bot; got != tt.want {
			t.Errorf("Parse(%q).Bot = %q; want %q", tt.body, got, tt.want)
		}
	}
	if Parse("@my.bot review", "my.bot").Bot != "review" {
		t.Error("a name with a dot is not matched literally")
	}
	if Parse("@myxbot review", "my.bot").Bot != "" {
		t.Error("the name is used as a pattern")
	}
}

func TestSignoffPhrase(t *testing.T) {
	p := SignoffPhrase
	tests := []struct {
		name string
		body string
		want bool
	}{
		{"plain", p + " checked:\n- [x] a", true},
		{"after text", "LGTM.\n\n" + p + " checked:", true},
		{"in a list item", "- " + p, true},
		{"fenced", "once the evals are green I will post this:\n```\n" + p + "\n```", false},
		{"four-backtick fence with a three-backtick line", "````\n```\n" + p + "\n````", false},
		{"tilde fence", "~~~\n" + p + "\n~~~", false},
		{"html comment", "<!-- " + p + " -->", false},
		{"html comment over lines", "<!--\n" + p + "\n-->", false},
		{"html comment opened mid-line", "Soon. <!--\n" + p + "\n-->", false},
		{"quoted", "> " + p, false},
		{"quote's lazy continuation", "> she wrote\n" + p, false},
		{"indented code", "Template:\n\n    " + p, false},
		{"code span", "post `" + p + "` when done", false},
		{"link reference definition", "[t]: https://example.com \"" + p + "\"", false},
		{"split across lines", strings.Replace(p, "CODEOWNER, ", "CODEOWNER,\n", 1), false},
	}
	for _, tt := range tests {
		if got := HasSignoff(tt.body); got != tt.want {
			t.Errorf("%s: HasSignoff = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestAuthorized(t *testing.T) {
	for _, tt := range []struct {
		assoc string
		want  bool
	}{{"OWNER", true}, {"member", true}, {"COLLABORATOR", true}, {"CONTRIBUTOR", false}, {"NONE", false}, {"", false}} {
		if got := Authorized(DefaultAssociations, tt.assoc); got != tt.want {
			t.Errorf("Authorized(%q) = %v", tt.assoc, got)
		}
	}
	if !Authorized([]string{"CONTRIBUTOR"}, "contributor") {
		t.Error("a configured association is not authorized")
	}
}

// A giant comment is read in linear time and the last command still wins.
func TestGiantComment(t *testing.T) {
	body := strings.Repeat("/use 1\n> quoted\n\n```\n/use 2\n```\n", 20000) + "/reuse-sweep-run 77"
	c := Parse(body, "reviewbot").Reuse
	if c == nil || c.String() != "/reuse-sweep-run 77" {
		t.Fatalf("got %+v", c)
	}
	if Parse(strings.Repeat("x", 1<<20), "reviewbot").Reuse != nil {
		t.Fatal("a command in a line of x")
	}
	if Parse(strings.Repeat("`", 1<<19), "reviewbot").Reuse != nil {
		t.Fatal("a command in backticks")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"/use 1", "```\n/use 2\n```", "> /reuse-sweep-run", "    /use 3", "<!--\n/use 4",
		"x <!--\n@reviewbot review\n-->", "````\n```\n" + SignoffPhrase, "`a` `` b `` ```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		p := Parse(body, "reviewbot")
		if c := p.Reuse; c != nil {
			if c.Name != CmdUse && c.Name != CmdReuse {
				t.Fatalf("odd command %+v", c)
			}
			if c.Invalid == "" && c.Name == CmdUse && c.RunID <= 0 {
				t.Fatalf("a valid /use without a run id: %+v", c)
			}
		}
		if p.Signoff && !strings.Contains(body, SignoffPhrase) {
			t.Fatal("a sign-off without the phrase")
		}
		if n := strings.Count(markdown.VisibleText(body), "\n"); n != strings.Count(strings.ReplaceAll(body, "\r\n", "\n"), "\n") && len(body) <= 1<<20 {
			t.Fatalf("VisibleText has %d line breaks", n)
		}
	})
}
