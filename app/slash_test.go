package app

import (
	"strings"
	"testing"
)

func TestParseSlashCommand(t *testing.T) {
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
		{"quoted then real", "> /use 1\n\n/use 2", "/use 2", ""},
		{"fenced backticks", "```\n/use 42\n```", "", ""},
		{"fenced tildes", "~~~sh\n/reuse-sweep-run\n~~~", "", ""},
		{"fence closed only by its own kind", "```\n~~~\n/use 1\n```\n/use 2", "/use 2", ""},
		{"longer fence needs a longer close", "````\n```\n/use 1\n````\n/use 3", "/use 3", ""},
		{"unclosed fence hides the rest", "```\n/use 1", "", ""},
		{"after a fence", "```\nx\n```\n/use 5", "/use 5", ""},
		{"indented code block", "Example:\n\n    /use 42\n", "", ""},
		{"indented in a list item continues it", "- done\n\n    /use 42", "/use 42", ""},
		{"html comment", "<!--\n/use 42\n-->", "", ""},
		{"one-line html comment", "<!-- /use 42 -->\n/use 43", "/use 43", ""},
		{"bare use", "/use", "/use", "needs the id"},
		{"zero id", "/use 0", "/use", "0 is not a run id"},
		{"overflowing id", "/use 99999999999999999999999", "/use", "too large"},
		{"empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := parseSlashCommand(tt.body)
			if ok != (tt.want != "") {
				t.Fatalf("found = %v, want %v (%+v)", ok, tt.want != "", c)
			}
			if !ok {
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

// A giant comment is read in linear time and the last command still wins.
func TestParseSlashCommandGiant(t *testing.T) {
	body := strings.Repeat("/use 1\n> quoted\n```\n/use 2\n```\n", 20000) + "/reuse-sweep-run 77"
	c, ok := parseSlashCommand(body)
	if !ok || c.String() != "/reuse-sweep-run 77" {
		t.Fatalf("got %+v, %v", c, ok)
	}
	if _, ok := parseSlashCommand(strings.Repeat("x", 1<<20)); ok {
		t.Fatal("a command in a line of x")
	}
}

func FuzzParseSlashCommand(f *testing.F) {
	for _, s := range []string{"/use 1", "```\n/use 2\n```", "> /reuse-sweep-run", "    /use 3", "<!--\n/use 4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		c, ok := parseSlashCommand(body)
		if ok && c.Name != cmdUse && c.Name != cmdReuse {
			t.Fatalf("odd command %+v", c)
		}
		if ok && c.Invalid == "" && c.Name == cmdUse && c.RunID <= 0 {
			t.Fatalf("a valid /use without a run id: %+v", c)
		}
	})
}
