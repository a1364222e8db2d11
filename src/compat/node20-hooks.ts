/** Module resolve hook (see node20.ts): redirects node:fs for MikroORM's fs-utils to fs-shim. */
interface ResolveContext {
  parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string }>;

export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<{ url: string; shortCircuit?: boolean }> {
  if ((specifier === 'node:fs' || specifier === 'fs') && context.parentURL?.includes('/@mikro-orm/core/utils/fs-utils.js')) {
    return { url: new URL('./fs-shim.js', import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}
