// The links every published package.json needs (`repository` with `directory`, `homepage`,
// `bugs`) come from one place: the root package.json, filled in when the project has a public
// remote. scripts/release-check.mjs writes them into each package of its release copy before
// packing; no package.json in packages/ or apps/ carries its own. See
// docs/decisions/2026-12-01-release-metadata.md.

/** The URL of a `repository` or `bugs` field, whether a string or an object. */
function urlOf(field) {
  if (typeof field === 'string') return field;
  if (field && typeof field === 'object' && typeof field.url === 'string') return field.url;
  return undefined;
}

/**
 * What is missing from the root package.json for a release: a list of field names (empty when
 * `repository.url`, `homepage` and `bugs` are all set).
 */
export function missingRootMetadata(root) {
  const missing = [];
  if (!urlOf(root.repository)) missing.push('repository.url');
  if (typeof root.homepage !== 'string' || root.homepage === '') missing.push('homepage');
  if (!urlOf(root.bugs)) missing.push('bugs');
  return missing;
}

/** The fields a package inherits from the root, given its folder relative to the root. */
export function packageMetadata(root, directory) {
  return {
    repository: {
      type: typeof root.repository === 'object' ? (root.repository.type ?? 'git') : 'git',
      url: urlOf(root.repository),
      directory,
    },
    homepage: root.homepage,
    bugs: typeof root.bugs === 'string' ? { url: root.bugs } : root.bugs,
  };
}

/** The link fields a package.json sets itself (there should be none). */
export function ownLinkFields(pkg) {
  return ['repository', 'homepage', 'bugs'].filter((field) => field in pkg);
}
