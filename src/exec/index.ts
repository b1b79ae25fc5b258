/** src/exec's public API: the executable IR, function registry, and the executor. */
import './functions/builtins.js';

export type * from './expr/expr.js';
export type { SubqueryPlan, UnplannedSubquery } from './expr/subquery-plan.js';
export { plannedSubquery } from './expr/subquery-plan.js';
export { Exprs, exprChildren } from './expr/expr.js';
export type { EvalContext } from './expr/eval-context.js';
export type * from './plan/physical-plan.js';
export { planInputs } from './plan/physical-plan.js';
export {
  commonSupertype, functionById, listFunctions, registerAggregateFunction, registerScalarFunction,
  registerWindowFunction, resolveFunction, resolveOperator, typeKey,
} from './functions/function-registry.js';
export type {
  AggregateFunctionDef, AggregateImpl, FunctionKind, ParamSpec, ResolvedFunction, ScalarFunctionDef, ScalarImpl, WindowFunctionDef,
} from './functions/function-registry.js';
export { canCoerce, isPreferredType, sameType, typeCategory } from './functions/type-coercion.js';
export type { CoercionContext, TypeCategory } from './functions/type-coercion.js';
export { executePlan } from './execute.js';
export { askLakeToPlanScanIn } from './operators/ask-lake-to-plan-scan.js';
export type {
  ExecContext, ExecLakeTransaction, ExecTableMetadata, ExecWarehouse, OperatorMetrics, ScanTaskRunner,
} from './exec-context.js';
export { arrowColumnReaders, arrowToRowBatch } from './arrow/arrow-column-readers.js';
export { vectorToValues, valuesToVector } from './arrow/vector-values.js';
export { execArrowType } from './arrow/arrow-types.js';
export type { ScanFragment, ScanPool } from './pool/scan-pool.js';
export { closeSharedScanPool, createScanPool, sharedScanPool } from './pool/piscina-scan-pool.js';
export type { ScanPoolOptions } from './pool/piscina-scan-pool.js';
export { castValue } from './types/cast-value.js';
export { formatValue, parseValue, formatFloat } from './types/text-io.js';
export type { TextIoSettings } from './types/text-io.js';
export { compareValues, valueKey } from './types/value-ops.js';
export { registerRegTypeResolver, regTypeInput, regTypeOutput } from './types/reg-types.js';
export type { RegTypeKind, RegTypeResolver } from './types/reg-types.js';
export type * from './server-functions.js';
