package multinode

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// MN007 reports a worker section whose engine settings give it the other
// role of a disaggregated pair.
var MN007 = &checks.Rule{
	ID:       "MN007",
	Severity: checks.Blocking,
	Title:    "Worker's engine settings give it the other disaggregation role",
	Doc: "A disaggregated recipe sets each role's engine options under `backend.<engine>_config.prefill` and " +
		"`.decode`, and some of those options name the role again: SGLang's `disaggregation-mode` (`prefill` or " +
		"`decode`) and the `kv_role` of vLLM's `kv-transfer-config` (a decode worker consumes KV blocks, " +
		"`kv_consumer`; a prefill worker produces them, `kv_producer`, or does both, `kv_both`). A section that names " +
		"the other role — usually a block copied from the other worker and not edited — starts a worker that " +
		"never takes the part srtctl launches it for: the pair does not hand requests over, and the job hangs or " +
		"measures nothing. This rule reports such a line the PR writes; set the value of the section's own role.",
	Run: runMN007,
}

// kvRoleRe finds the kv_role values of a kv-transfer-config JSON string.
var kvRoleRe = regexp.MustCompile(`"kv_role"\s*:\s*"([A-Za-z_]+)"`)

// roleClash is a line of a role's section that names the other role.
type roleClash struct {
	role, key, value string
	line             int
}

func runMN007(p *checks.Pass) error {
	for _, fc := range changedRecipes(p) {
		d, err := read(p, p.Change.Head, fc.Path)
		if err != nil {
			return err
		}
		for _, c := range roleClashes(d.root) {
			if !fc.IsAdded(c.line) {
				continue // a line the PR did not write
			}
			other := "prefill"
			if c.role == "prefill" {
				other = "decode"
			}
			p.Report(checks.Finding{
				Path:  fc.Path,
				Line:  c.line,
				Title: fmt.Sprintf("%s worker configured as %s", roleName(c.role), other),
				Body: fmt.Sprintf("Line %d sets %s to %s in the %s section, which makes this worker a %s worker: srtctl launches it as "+
					"%s, and the pair never hands a request over (the job waits on a worker that does not take its part). "+
					"The section looks copied from the %s worker; set %s for the %s role.",
					c.line, prose.Code(c.key), prose.Code(c.value), prose.Code(c.role), other, c.role, other,
					prose.Code(c.key), c.role),
				Key: "role-clash:" + c.role + ":" + c.key,
			})
		}
	}
	return nil
}

func roleName(role string) string { return strings.ToUpper(role[:1]) + role[1:] }

// roleClashes finds, in every engine block of a recipe's backend, the
// lines of the prefill and decode sections that name the other role.
func roleClashes(root *yaml.Node) []roleClash {
	backend := yamlx.Get(root, "backend")
	if backend == nil || backend.Kind != yaml.MappingNode {
		return nil
	}
	var out []roleClash
	for i := 0; i+1 < len(backend.Content); i += 2 {
		block := backend.Content[i+1]
		if block.Kind != yaml.MappingNode {
			continue
		}
		for _, role := range []string{"prefill", "decode"} {
			sec := yamlx.Get(block, role)
			if sec == nil || sec.Kind != yaml.MappingNode {
				continue
			}
			for j := 0; j+1 < len(sec.Content); j += 2 {
				k, v := sec.Content[j], sec.Content[j+1]
				if v.Kind != yaml.ScalarNode {
					continue
				}
				switch k.Value {
				case "disaggregation-mode", "disaggregation_mode":
					if m := strings.ToLower(strings.TrimSpace(v.Value)); (m == "prefill" || m == "decode") && m != role {
						out = append(out, roleClash{role: role, key: k.Value, value: v.Value, line: v.Line})
					}
				case "kv-transfer-config", "kv_transfer_config":
					if len(v.Value) > 1<<16 {
						continue
					}
					for _, m := range kvRoleRe.FindAllStringSubmatch(v.Value, -1) {
						if role == "decode" && m[1] == "kv_producer" || role == "prefill" && m[1] == "kv_consumer" {
							out = append(out, roleClash{role: role, key: k.Value + " kv_role", value: m[1], line: v.Line})
							break
						}
					}
				}
			}
		}
	}
	return out
}
