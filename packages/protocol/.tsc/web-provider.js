export {};
//# sourceMappingURL=web-provider.js.map