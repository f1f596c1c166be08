package recipe

import (
	"fmt"
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	for _, p := range []string{
		"benchmarks/single_node/agentic/kimik3_fp4_b300_vllm.sh",
		"benchmarks/single_node/agentic/minimaxm3_fp4_b300_vllm.sh",
		"benchmarks/single_node/agentic/dsv41flash_fp4_gb200_vllm.sh",
		"benchmarks/single_node/agentic/glm5.2_fp4_b300_sglang.sh",
		"benchmarks/single_node/dsv4_fp4_b200_vllm_mtp.sh",
		"runners/launch_b300-nv.sh",
	} {
		b, _ := os.ReadFile("../../testdata/trees/inferencex/" + p)
		f, err := ParseFacts(p, b)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("==", p, f.Engine)
		for _, s := range append(f.Servers, f.Clients...) {
			fmt.Printf("cmd %s %s L%d-%d run%d oneline=%v array=%s path=%s opaque=%v\n", s.Role, s.Program, s.Line, s.EndLine, s.RunLine, s.OneLine, s.Array, s.Path, s.Opaque)
			for _, fl := range s.Flags {
				js := ""
				if fl.JSON != nil {
					js = fmt.Sprintf(" JSON[var=%s L%d-%d parsed=%v entries=%v]", fl.JSON.Var, fl.JSON.Line, fl.JSON.EndLine, fl.JSON.Parsed, fl.JSON.Entries)
				}
				fmt.Printf("   %s=%q static=%v L%d/%d via=%s path=%s%s\n", fl.Name, fl.Value, fl.Static, fl.Line, fl.ValueLine, fl.Via, fl.Path, js)
			}
		}
		for _, v := range f.Vars {
			if v.Kind == Export || v.Kind == EnvPrefix {
				fmt.Printf("  export %s=%q L%d path=%s\n", v.Name, v.Value, v.Line, v.Path)
			}
		}
		for _, im := range f.Images {
			fmt.Printf("  image %+v\n", im)
		}
	}
}
