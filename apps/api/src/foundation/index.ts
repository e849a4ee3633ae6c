// apps/api's foundation: the vocabulary every other folder shares (errors, tokens, access
// settings, route typing, range and request parameters). It imports none of the other folders
// (dependency rule api-foundation-imports-none), so anything may import it.
export * from './errors';
export * from './tokens';
export * from './credentials';
export * from './access-settings';
export * from './validation';
export * from './route-app';
export * from './range';
export * from './request';
