import { registerBuiltinAggregates } from './builtin-aggregates.js';
import { registerBuiltinDatetimeFunctions } from './builtin-datetime-functions.js';
import { registerBuiltinMathFunctions } from './builtin-math-functions.js';
import { registerBuiltinOperators } from './builtin-operators.js';
import { registerBuiltinMiscFunctions } from './builtin-misc-functions.js';
import { registerBuiltinSetFunctions } from './builtin-set-functions.js';
import { registerBuiltinJsonSetFunctions } from './builtin-json-set-functions.js';
import { registerBuiltinSequenceFunctions } from './builtin-sequence-functions.js';
import { registerBuiltinServerFunctions } from './builtin-server-functions.js';
import { registerBuiltinStringFunctions } from './builtin-string-functions.js';
import { registerRowValueFunctions } from './row-value-functions.js';
import { registerSimilarToEscape } from './similar-to-escape.js';
import { registerTableSampleFunction } from './table-sample-function.js';
import { registerBuiltinJsonFunctions } from './builtin-json-functions.js';
import { registerBuiltinStatisticsAggregates } from './builtin-statistics-aggregates.js';
import { registerBuiltinOrderedSetAggregates } from './builtin-ordered-set-aggregates.js';
import { registerBuiltinRegexpFunctions } from './builtin-regexp-functions.js';
import { registerBuiltinFormatFunction } from './builtin-format-function.js';
import { registerBuiltinArrayDimensionFunctions } from './builtin-array-dimension-functions.js';
import { registerSubscriptAssignment } from './subscript-assignment.js';
import { registerBuiltinEnumFunctions } from './builtin-enum-functions.js';
import { setBuiltinLoader } from './function-registry.js';

/** Registers every built-in function lazily, on the registry's first lookup. */
export function registerBuiltins(): void {
  registerBuiltinOperators();
  registerBuiltinStringFunctions();
  registerBuiltinMathFunctions();
  registerBuiltinDatetimeFunctions();
  registerBuiltinAggregates();
  registerBuiltinMiscFunctions();
  registerBuiltinSetFunctions();
  registerBuiltinJsonSetFunctions();
  registerBuiltinSequenceFunctions();
  registerRowValueFunctions();
  registerSimilarToEscape();
  registerTableSampleFunction();
  registerBuiltinServerFunctions();
  registerBuiltinJsonFunctions();
  registerBuiltinStatisticsAggregates();
  registerBuiltinOrderedSetAggregates();
  registerBuiltinRegexpFunctions();
  registerBuiltinEnumFunctions();
  registerBuiltinFormatFunction();
  registerBuiltinArrayDimensionFunctions();
  registerSubscriptAssignment();
}

setBuiltinLoader(registerBuiltins);
