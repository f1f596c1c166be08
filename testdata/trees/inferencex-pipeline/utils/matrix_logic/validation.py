"""Schema of the master configs, enforced before the sweep matrix is built."""
from enum import Enum
from typing import List, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Fields(Enum):
    IMAGE = 'image'
    MODEL = 'model'
    MODEL_PREFIX = 'model-prefix'
    PRECISION = 'precision'
    FRAMEWORK = 'framework'
    RUNNER = 'runner'
    MULTINODE = 'multinode'
    DISAGG = 'disagg'
    SCENARIOS = 'scenarios'
    FIXED_SEQ_LEN = 'fixed-seq-len'
    AGENTIC_CODING = 'agentic-coding'
    ISL = 'isl'
    OSL = 'osl'
    SEARCH_SPACE = 'search-space'
    TP = 'tp'
    EP = 'ep'
    DP_ATTN = 'dp-attn'
    SPEC_DECODING = 'spec-decoding'
    CONC_START = 'conc-start'
    CONC_END = 'conc-end'
    CONC_LIST = 'conc-list'
    PREFILL = 'prefill'
    DECODE = 'decode'
    NUM_WORKER = 'num-worker'
    ADDITIONAL_SETTINGS = 'additional-settings'
    KV_OFFLOADING = 'kv-offloading'
    KV_OFFLOAD_BACKEND = 'kv-offload-backend'
    KV_P2P_TRANSFER = 'kv-p2p-transfer'
    ROUTER = 'router'
    DRAM_UTILIZATION = 'dram-utilization'


def _validate_conc_fields(self):
    """A row sweeps a conc-list or a conc-start..conc-end range, not both."""
    return self


def _validate_kv_offload_fields(self):
    """A backend names where KV blocks go; it goes with kv-offloading."""
    return self


def _validate_agentic_runner_is_cluster(runner, scenarios):
    """Agentic points must all run on one fleet."""
    return None


class Backend(BaseModel):
    model_config = ConfigDict(extra='forbid')

    name: str = Field(min_length=1)
    version: Optional[str] = Field(default=None, min_length=1)


class Component(BaseModel):
    model_config = ConfigDict(extra='forbid')

    name: str = Field(min_length=1)
    version: str = Field(min_length=1)


class WorkerConfig(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    num_worker: int = Field(alias=Fields.NUM_WORKER.value)
    tp: int
    ep: int
    dp_attn: bool = Field(alias=Fields.DP_ATTN.value)
    additional_settings: Optional[List[str]] = Field(
        default=[], alias=Fields.ADDITIONAL_SETTINGS.value)


class SingleNodeSearchSpaceEntry(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    tp: int
    ep: Optional[int] = None
    dp_attn: Optional[bool] = Field(default=None, alias=Fields.DP_ATTN.value)
    spec_decoding: Literal["mtp", "draft_model", "none"] = Field(
        default="none", alias=Fields.SPEC_DECODING.value)
    router: Optional[Component] = None
    conc_start: Optional[int] = Field(default=None, alias=Fields.CONC_START.value)
    conc_end: Optional[int] = Field(default=None, alias=Fields.CONC_END.value)
    conc_list: Optional[List[int]] = Field(default=None, alias=Fields.CONC_LIST.value)

    @model_validator(mode='after')
    def validate_conc_fields(self):
        return _validate_conc_fields(self)


class MultiNodeSearchSpaceEntry(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    spec_decoding: Literal["mtp", "draft_model", "none"] = Field(
        default="none", alias=Fields.SPEC_DECODING.value)
    prefill: WorkerConfig
    decode: WorkerConfig
    conc_start: Optional[int] = Field(default=None, alias=Fields.CONC_START.value)
    conc_end: Optional[int] = Field(default=None, alias=Fields.CONC_END.value)
    conc_list: Optional[List[int]] = Field(default=None, alias=Fields.CONC_LIST.value)

    @model_validator(mode='after')
    def validate_conc_fields(self):
        return _validate_conc_fields(self)


class SingleNodeSeqLenConfig(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    isl: int
    osl: int
    search_space: List[SingleNodeSearchSpaceEntry] = Field(alias=Fields.SEARCH_SPACE.value)


class MultiNodeSeqLenConfig(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    isl: int
    osl: int
    search_space: List[MultiNodeSearchSpaceEntry] = Field(alias=Fields.SEARCH_SPACE.value)


class AgenticCodingSearchSpaceEntry(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    tp: Optional[int] = None
    ep: Optional[int] = None
    dp_attn: Optional[bool] = Field(default=None, alias=Fields.DP_ATTN.value)
    spec_decoding: Literal["mtp", "draft_model", "none"] = Field(
        default="none", alias=Fields.SPEC_DECODING.value)
    prefill: Optional[WorkerConfig] = None
    decode: Optional[WorkerConfig] = None
    kv_offloading: Optional[Literal["none", "dram"]] = Field(
        default=None, alias=Fields.KV_OFFLOADING.value)
    kv_offload_backend: Optional[Backend] = Field(
        default=None, alias=Fields.KV_OFFLOAD_BACKEND.value)
    router: Optional[Component] = None
    conc_start: Optional[int] = Field(default=None, alias=Fields.CONC_START.value)
    conc_end: Optional[int] = Field(default=None, alias=Fields.CONC_END.value)
    conc_list: Optional[List[int]] = Field(default=None, alias=Fields.CONC_LIST.value)

    @model_validator(mode='after')
    def validate_conc_fields(self):
        return _validate_conc_fields(self)

    @model_validator(mode='after')
    def validate_kv_offload_fields(self):
        return _validate_kv_offload_fields(self)


class AgenticCodingConfig(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    search_space: List[AgenticCodingSearchSpaceEntry] = Field(alias=Fields.SEARCH_SPACE.value)
    dram_utilization: Optional[float] = Field(
        default=None, alias=Fields.DRAM_UTILIZATION.value, gt=0, le=1)

    @model_validator(mode='after')
    def validate_dram_offload_capacity(self):
        return self


class SingleNodeScenarios(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    fixed_seq_len: Optional[List[SingleNodeSeqLenConfig]] = Field(
        default=None, alias=Fields.FIXED_SEQ_LEN.value)
    agentic_coding: Optional[List[AgenticCodingConfig]] = Field(
        default=None, alias=Fields.AGENTIC_CODING.value)


class MultiNodeScenarios(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    fixed_seq_len: Optional[List[MultiNodeSeqLenConfig]] = Field(
        default=None, alias=Fields.FIXED_SEQ_LEN.value)
    agentic_coding: Optional[List[AgenticCodingConfig]] = Field(
        default=None, alias=Fields.AGENTIC_CODING.value)


class SingleNodeMasterConfigEntry(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    image: str
    model: str
    model_prefix: str = Field(alias=Fields.MODEL_PREFIX.value)
    precision: str
    framework: str
    runner: str
    multinode: Literal[False]
    disagg: Literal[False] = Field(default=False)
    scenarios: SingleNodeScenarios

    @model_validator(mode='after')
    def validate_agentic_runner(self):
        _validate_agentic_runner_is_cluster(self.runner, self.scenarios)
        return self


class MultiNodeMasterConfigEntry(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)

    image: str
    model: str
    model_prefix: str = Field(alias=Fields.MODEL_PREFIX.value)
    precision: str
    framework: str
    runner: str
    multinode: Literal[True]
    disagg: bool = Field(default=False)
    kv_p2p_transfer: Optional[str] = Field(
        default=None, alias=Fields.KV_P2P_TRANSFER.value, min_length=1)
    scenarios: MultiNodeScenarios

    @model_validator(mode='after')
    def validate_agentic_runner(self):
        _validate_agentic_runner_is_cluster(self.runner, self.scenarios)
        return self
