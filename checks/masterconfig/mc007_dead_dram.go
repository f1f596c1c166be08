package masterconfig

import (
	"fmt"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const dramUtilization = "dram-utilization"

var mc007 = &checks.Rule{
	ID:       "MC007",
	Severity: checks.Warning,
	Title:    "dram-utilization left on a block with no DRAM-offload row",
	Doc: "An agentic block's `dram-utilization` sizes the host-memory KV cache of its rows that offload to DRAM " +
		"(`kv-offloading: dram`): the sweep generator scales the runner's CPU DRAM by it for those rows, and for " +
		"no other. This rule reports a block where the PR leaves `dram-utilization` set while none of the block's " +
		"rows offloads to DRAM any more (the PR removed or rewrote the last such row): the value is dead, and reads " +
		"as if the block measured offload. Drop the setting, or " +
		"keep the DRAM-offload row it was for.",
	Run: runMC007,
}

// offloadsToDRAM reports whether some row of the block offloads to DRAM.
func offloadsToDRAM(s *Scenario) bool {
	for _, r := range s.Rows {
		if r.KVOffloading == "dram" {
			return true
		}
	}
	return false
}

func runMC007(p *checks.Pass) error {
	return eachKey(p, func(fs *fileState, ks *keyState) {
		if !ks.altered() {
			return
		}
		// The scenarios where the base key offloaded to DRAM (a key may
		// hold several agentic blocks).
		hadDRAM := map[string]bool{}
		if ks.base != nil {
			for _, s := range ks.base.Scenarios {
				if offloadsToDRAM(s) {
					hadDRAM[s.ID()] = true
				}
			}
		}
		for _, s := range ks.key.Scenarios {
			if _, ok := s.Raw[dramUtilization]; !ok || len(s.Rows) == 0 || offloadsToDRAM(s) {
				continue
			}
			if !hadDRAM[s.ID()] {
				continue // not the PR's doing: the block had no DRAM row before
			}
			line := s.LineOf(dramUtilization)
			why := "this PR removed or rewrote the last row that offloads to DRAM"
			p.Report(checks.Finding{
				Path: fs.path, Line: line,
				Title: fmt.Sprintf("%s: %s set, but no row offloads to DRAM", prose.Code(ks.key.Name), prose.Code(dramUtilization)),
				Body: fmt.Sprintf("The %s block of %s sets %s, but %s: the setting only sizes the host-memory KV cache of "+
					"`kv-offloading: dram` rows, so here it is dead. Drop it, or keep the DRAM-offload row it was for.",
					prose.Code(s.Kind), prose.Code(ks.key.Name), prose.Code(fmt.Sprintf("%s: %v", dramUtilization, s.Raw[dramUtilization])), why),
				Key: "MC007 " + ks.key.Name + " " + s.ID(),
			})
		}
	})
}
