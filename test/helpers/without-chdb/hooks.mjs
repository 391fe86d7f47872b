// Module resolution hooks that make `chdb` (and its engine's packages) impossible to find, as in the
// slim image, which leaves them out. Registered by ./register.mjs.
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'chdb' || specifier.startsWith('chdb/') || specifier.startsWith('@chdb/')) {
    const error = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL ?? 'the entry point'}`);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return nextResolve(specifier, context);
}
