// @spine/web-tools/internal: the address parsers behind the public URL and address policy, for
// this package's tests and for audits, and the fetch provider's loopback test seam. Not a semver
// promise: names and shapes here may change in any release. Adopters use `checkUrl`,
// `isRefusedAddress`, `parseTrustedRanges` and `createHttpFetchProvider` from the main entry.

export type { EmbeddedIpv4 } from './address-policy.js';
export { embeddedIpv4, parseCidr, rangeContains } from './address-policy.js';
export type { UnsafeTestSeam } from './fetch-http.js';
export { createHttpFetchProviderWithTestSeam } from './fetch-http.js';
export type { HostLiteral, HostLiteralForm } from './ip-address.js';
export { formatIp, parseHostLiteral, parseIp } from './ip-address.js';
