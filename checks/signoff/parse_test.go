package signoff

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		ok       bool
		items    int
		checked  []bool
		signer   string
		details  string
		kinds    []LinkKind
		depthTwo bool
	}{
		{name: "not a sign-off", body: "LGTM, thanks!", ok: false},
		{name: "phrase in a fence", body: "I will post:\n```\n" + Phrase + ":\n- [x] A\nSigned: me\n```\n", ok: false},
		{name: "phrase in an HTML comment", body: "<!-- " + Phrase + " -->\n- [x] A\nSigned: me\n", ok: false},
		{name: "phrase in a code span", body: "Post `" + Phrase + "` when done.\n- [x] A\nSigned: me\n", ok: false},
		{
			// Checked boxes and a signer hidden from the page are not part
			// of the sign-off.
			name: "hidden items and signer",
			body: Phrase + ":\n- [ ] Verified A\n<!--\n- [x] Verified A\nSigned: someone-else\n-->\nSigned: me\n",
			ok:   true, items: 1, checked: []bool{false}, signer: "me",
		},
		{
			name: "checkboxes, details, signer",
			body: "Looks good.\n\n" + Phrase + ":\n- [x] Verified A\n- [ ] Verified B\n  - [X] nested C\n\n### Additional detail section:\n- B: not applicable here.\n\nSigned: `@Ankur-singh`\n",
			ok:   true, items: 3, checked: []bool{true, false, true}, signer: "Ankur-singh", details: "- B: not applicable here.", depthTwo: true,
		},
		{
			name: "plain bullets count as claimed",
			body: Phrase + ":\n\n• Verified A — https://github.com/SemiAnalysisAI/InferenceX/actions/runs/31147925932\n• Verified B\n\nAdditional detail section:\n\n• text https://github.com/vllm-project/recipes/pull/412 and docs/waiver/2512.md at https://github.com/SemiAnalysisAI/InferenceX/blob/main/docs/waiver/2512.md\n\nSigned: Ankur-singh",
			ok:   true, items: 2, checked: []bool{true, true}, signer: "Ankur-singh",
			kinds: []LinkKind{LinkRun, LinkPR, LinkWaiver},
		},
		{
			name: "template placeholder is no signer",
			body: Phrase + ":\n- [x] Verified A\nSigned: `FILL_IN_GITHUB_USERNAME`\n",
			ok:   true, items: 1, checked: []bool{true}, signer: "",
		},
		{
			name: "CRLF and bold detail heading",
			body: Phrase + ":\r\n- [x] A\r\n**Additional detail section:**\r\n- why\r\nSigned: me\r\n",
			ok:   true, items: 1, checked: []bool{true}, signer: "me", details: "- why",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := Parse(tt.body)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if len(s.Items) != tt.items {
				t.Fatalf("%d items, want %d: %+v", len(s.Items), tt.items, s.Items)
			}
			for i, c := range tt.checked {
				if s.Items[i].Checked != c {
					t.Errorf("item %d checked = %v, want %v", i, s.Items[i].Checked, c)
				}
			}
			if s.Signer != tt.signer {
				t.Errorf("signer %q, want %q", s.Signer, tt.signer)
			}
			if tt.details != "" && s.Details != tt.details {
				t.Errorf("details %q, want %q", s.Details, tt.details)
			}
			if tt.depthTwo && s.Items[2].Depth != 1 {
				t.Errorf("nested item depth %d", s.Items[2].Depth)
			}
			var kinds []LinkKind
			for _, l := range s.Links {
				kinds = append(kinds, l.Kind)
			}
			if tt.kinds != nil && strings.Join(toStrings(kinds), ",") != strings.Join(toStrings(tt.kinds), ",") {
				t.Errorf("link kinds %v, want %v (%+v)", kinds, tt.kinds, s.Links)
			}
		})
	}
}

func toStrings(ks []LinkKind) []string {
	var out []string
	for _, k := range ks {
		out = append(out, string(k))
	}
	return out
}

func TestParseLinks(t *testing.T) {
	s, _ := Parse(Phrase + ":\n- [x] run https://github.com/o/r/actions/runs/42/job/7. and https://github.com/sgl-project/sglang/pull/9001)\n")
	if len(s.Links) != 2 {
		t.Fatalf("links %+v", s.Links)
	}
	if l := s.Links[0]; l.Kind != LinkRun || l.Number != 42 || l.Owner != "o" {
		t.Errorf("run link %+v", l)
	}
	if l := s.Links[1]; l.Kind != LinkPR || l.Number != 9001 || l.Repo != "sglang" || len(UpstreamLinks(s)) != 1 {
		t.Errorf("PR link %+v", l)
	}
}

// A giant comment is cut, not a crash or a hang.
func TestParseHuge(t *testing.T) {
	body := Phrase + ":\n" + strings.Repeat("- [x] Verified something long enough to matter\n", 200000)
	s, ok := Parse(body)
	if !ok || len(s.Items) == 0 || len(s.Items) > maxBody/40 {
		t.Fatalf("ok %v, %d items", ok, len(s.Items))
	}
}

func FuzzParse(f *testing.F) {
	f.Add(Phrase + ":\n- [x] a\nSigned: b\n")
	f.Add("no")
	f.Fuzz(func(t *testing.T, body string) {
		s, ok := Parse(body)
		if ok && s == nil {
			t.Fatal("ok with nil sign-off")
		}
	})
}
