/** src/exec's public API: the executable IR, function registry, and the executor. */
import './functions/builtins.js';

export type * from './expr/expr.js';
export type { SubqueryPlan, UnplannedSubquery } from './expr/subquery-plan.js';
export { plannedSubquery } from './expr/subquery-plan.js';
export { Exprs, exprChildren, shippable } from './expr/expr.js';
export { compileExpr } from './expr/compile-expr.js';
export { createRunState, type RunState } from './run-state.js';
export type { EvalContext } from './expr/eval-context.js';
export type * from './plan/physical-plan.js';
export { planAtPath, planInputs } from './plan/physical-plan.js';
export {
  commonSupertype, functionById, listFunctions, registerAggregateFunction, registerScalarFunction,
  registerSetFunction, registerWindowFunction, registeredFunctionCount, resolveFunction, resolveOperator, setFunctionColumns, typeKey,
} from './functions/function-registry.js';
export type {
  AggregateFunctionDef, AggregateImpl, FunctionKind, ListedFunction, ParamSpec, ResolvedFunction, ScalarFunctionDef, ScalarImpl, WindowFunctionDef,
} from './functions/function-registry.js';
export { canCoerce, isPreferredType, sameType, typeCategory } from './functions/type-coercion.js';
export type { CoercionContext, TypeCategory } from './functions/type-coercion.js';
export { executePlan } from './execute.js';
export { askLakeToPlanScanIn } from './operators/ask-lake-to-plan-scan.js';
export type {
  ExecContext, ExecLakeTransaction, ExecTableMetadata, ExecWarehouse, OperatorMetrics, ScanTaskRunner,
} from './exec-context.js';
export { arrowColumnReaders, arrowToRowBatch } from './arrow/arrow-column-readers.js';
export { columnValues, vectorToValues, valuesToVector } from './arrow/vector-values.js';
export { execArrowType } from './arrow/arrow-types.js';
export type { ScanFragment, ScanPool } from './pool/scan-pool.js';
export { closeSharedScanPool, createScanPool, sharedScanPool } from './pool/piscina-scan-pool.js';
export { spilledBytes } from './operators/spill-file.js';
export type { ScanPoolOptions } from './pool/piscina-scan-pool.js';
export { castValue } from './types/cast-value.js';
export { formatValue, parseValue, formatFloat } from './types/text-io.js';
export type { TextIoSettings } from './types/text-io.js';
export { compareValues, valueKey } from './types/value-ops.js';
export { registerRegTypeResolver, regTypeInput, regTypeOutput } from './types/reg-types.js';
export type { RegTypeKind, RegTypeResolver } from './types/reg-types.js';
export type * from './server-functions.js';
export type * from './virtual-table.js';
export type { CheckConstraintPlan } from './plan/check-constraint-plan.js';
export type { SessionSequences } from './session-sequences.js';
// Function names and ids the binder writes into plans for syntax that is no ordinary call.
export { ENUM_ORDERING_FUNCTIONS } from './functions/builtin-enum-functions.js';
export { ORDERED_SET_AGGREGATES } from './functions/builtin-ordered-set-aggregates.js';
export { RowValueFunctions } from './functions/row-value-functions.js';
export { ARRAY_SUBSCRIPT_ASSIGN, JSONB_SUBSCRIPT_ASSIGN } from './functions/subscript-assignment.js';
export { TABLE_SAMPLE_FUNCTION } from './functions/table-sample-function.js';
export { enforceCheckConstraints } from './operators/check-constraints.js';
export { RUNTIME_FILTERS_SETTING, RUNTIME_FILTER_MAX_KEYS, RUNTIME_FILTER_MAX_KEYS_SETTING } from './operators/runtime-filter.js';
export { PROBE_FIRST_ROWS, SMALL_LEFT_ROWS, SMALL_RIGHT_ROWS } from './operators/joins/build-side.js';
export { KEY_LOOKUP_MAX_KEYS } from './operators/key-lookup.js';
// Text input and output of values, shared with the binder's literal folding so a folded literal is refused as the cast would refuse it.
export { jsonbNormalize } from './types/cast-value.js';
export { formatInterval, parseDate, parseTimestamp, parseTimestamptz } from './types/datetime.js';
export { parseEnumLabel } from './types/enum-value.js';
export { parseJsonNode } from './types/json-value.js';
export { formatDecimal, parseDecimal } from './types/numeric.js';
export { applyCharLength, parseBool, parseFloat8 } from './types/text-io.js';
export { aggregateShipment } from './aggregate/partial-aggregate.js';
export {
  dropsUnmatchedBuildRows, dropsUnmatchedProbeRows, runtimeFilterColumnKind, runtimeFilterKind, type RuntimeFilterKind,
} from './operators/runtime-filter.js';
