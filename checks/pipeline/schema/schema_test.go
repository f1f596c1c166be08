package schema

import (
	"strconv"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
)

// A validation module written in the shape of the repository's (a Fields
// table, pydantic models, validators called from model validators).
const testValidation = `from enum import Enum
from pydantic import BaseModel, ConfigDict, Field, model_validator
from typing import List, Optional, Union, Literal


class Fields(Enum):
    TP = 'tp'
    EP = 'ep'
    DP_ATTN = 'dp-attn'
    SPEC_DECODING = 'spec-decoding'
    CONC_START = 'conc-start'
    CONC_END = 'conc-end'
    CONC_LIST = 'conc-list'
    MODEL_PREFIX = 'model-prefix'
    SEARCH_SPACE = 'search-space'
    FIXED_SEQ_LEN = 'fixed-seq-len'
    AGENTIC_CODING = 'agentic-coding'
    KV_OFFLOADING = 'kv-offloading'
    KV_OFFLOAD_BACKEND = 'kv-offload-backend'


def _validate_conc_fields(self):
    return self


class Backend(BaseModel):
    model_config = ConfigDict(extra='forbid')

    name: str = Field(min_length=1)


class SearchSpaceEntry(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    tp: int
    ep: Optional[int] = None
    pp: int = Field(default=1, gt=0, strict=True)
    dp_attn: Optional[bool] = Field(
        default=None, alias=Fields.DP_ATTN.value)
    spec_decoding: Literal["mtp", "draft_model", "none"] = Field(
        default="none", alias=Fields.SPEC_DECODING.value)
    kv_offloading: Optional[Literal["none", "dram"]] = Field(default=None, alias=Fields.KV_OFFLOADING.value)
    kv_offload_backend: Optional[Backend] = Field(default=None, alias=Fields.KV_OFFLOAD_BACKEND.value)
    conc_start: Optional[int] = Field(default=None, alias=Fields.CONC_START.value)
    conc_end: Optional[int] = Field(default=None, alias=Fields.CONC_END.value)
    conc_list: Optional[List[int]] = Field(default=None, alias=Fields.CONC_LIST.value)

    @model_validator(mode='after')
    def validate_conc_fields(self):
        return _validate_conc_fields(self)

    @model_validator(mode='after')
    def validate_kv(self):
        return _validate_kv_offload_fields(self)


class SeqLenConfig(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    isl: int
    osl: int
    search_space: List[SearchSpaceEntry] = Field(alias=Fields.SEARCH_SPACE.value)


class Scenarios(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    fixed_seq_len: Optional[List[SeqLenConfig]] = Field(default=None, alias=Fields.FIXED_SEQ_LEN.value)


class SingleNodeMasterConfigEntry(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    image: str
    model: str
    model_prefix: str = Field(alias=Fields.MODEL_PREFIX.value)
    precision: str
    runner: str
    multinode: Literal[False]
    scenarios: Scenarios


class MultiNodeMasterConfigEntry(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    image: str
    multinode: Literal[True]
`

func checkKey(t *testing.T, s *Schema, src string) []string {
	t.Helper()
	doc, err := yamlx.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	root := yamlx.Root(doc)
	pairs := yamlx.Pairs(root)
	var out []string
	for _, p := range s.Check(pairs[0].Key.Value, ValueOf(p0(pairs).Value)) {
		out = append(out, strconv.Itoa(p.Line)+" "+p.Path+": "+p.Msg)
	}
	return out
}

func p0(p []yamlx.Pair) yamlx.Pair { return p[0] }

func TestSchemaParse(t *testing.T) {
	s, err := Parse("utils/matrix_logic/validation.py", []byte(testValidation))
	if err != nil {
		t.Fatal(err)
	}
	if s.Fields["DP_ATTN"] != "dp-attn" || len(s.Fields) != 13 {
		t.Errorf("fields %v", s.Fields)
	}
	e := s.Models["SearchSpaceEntry"]
	if e == nil || !e.Forbid || !e.ByName || len(e.Fields) != 10 {
		t.Fatalf("SearchSpaceEntry %+v", e)
	}
	var keys []string
	for _, f := range e.Fields {
		keys = append(keys, f.Key())
	}
	if got := strings.Join(keys, " "); got != "tp ep pp dp-attn spec-decoding kv-offloading kv-offload-backend conc-start conc-end conc-list" {
		t.Errorf("keys %s", got)
	}
	if !e.Fields[0].Required || e.Fields[1].Required || e.Fields[2].Required || !e.Fields[2].Strict || e.Fields[2].Gt == nil {
		t.Errorf("tp/ep/pp: %+v %+v %+v", e.Fields[0], e.Fields[1], e.Fields[2])
	}
	if got := e.Fields[4].Type.String(); got != "one of mtp, draft_model, none" {
		t.Errorf("spec type %s", got)
	}
	if got := strings.Join(e.Validators, ","); !strings.Contains(got, "_validate_conc_fields") || !strings.Contains(got, "_validate_kv_offload_fields") {
		t.Errorf("validators %s", got)
	}
}

func TestSchemaCheck(t *testing.T) {
	s, err := Parse("v.py", []byte(testValidation))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src string
		want      []string
	}{
		{"valid", `k:
  image: i
  model: m
  model-prefix: k
  precision: fp4
  runner: b200
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, ep: 8, dp-attn: true, conc-list: [4, 8] }
      - { tp: 4, spec-decoding: mtp, conc-start: 4, conc-end: 64 }
`, nil},
		{"old layout key", `k:
  image: i
  model: m
  model-prefix: k
  precision: fp4
  runner: b200
  multinode: false
  seq-len-configs:
  - isl: 1024
`, []string{
			"2 scenarios: the required field `scenarios` is missing (SingleNodeMasterConfigEntry)",
			"8 seq-len-configs: `seq-len-configs` is not a field the schema allows here (SingleNodeMasterConfigEntry takes image, model, model-prefix, precision, runner, multinode, scenarios)",
		}},
		{"bad values", `k:
  image: i
  model: m
  model-prefix: k
  precision: fp4
  runner: b200
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: eight, spec-decoding: eagle, conc-list: [4], conc-start: 1, conc-end: 2, pp: "2" }
      - { tp: 4, kv-offloading: dram }
      - { tp: 4, conc-start: 64, conc-end: 4, dp_attn: true, epp: 1 }
`, []string{
			"13 scenarios.fixed-seq-len[0].search-space[0].tp: `eight` is not an integer",
			"13 scenarios.fixed-seq-len[0].search-space[0].spec-decoding: `eagle` is not one of mtp, draft_model, none",
			"13 scenarios.fixed-seq-len[0].search-space[0].pp: `2` is not an integer",
			"13 scenarios.fixed-seq-len[0].search-space[0]: gives both conc-list and conc-start/conc-end; the generator takes one or the other",
			"14 scenarios.fixed-seq-len[0].search-space[1]: gives neither conc-list nor both conc-start and conc-end",
			"14 scenarios.fixed-seq-len[0].search-space[1].kv-offloading: kv-offload-backend is required when kv-offloading is dram",
			"15 scenarios.fixed-seq-len[0].search-space[2].epp: `epp` is not a field the schema allows here (SearchSpaceEntry takes tp, ep, pp, dp-attn, spec-decoding, kv-offloading, kv-offload-backend, conc-start, conc-end, conc-list)",
			"15 scenarios.fixed-seq-len[0].search-space[2]: conc-start (64) is above conc-end (4)",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := checkKey(t, s, tc.src)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
