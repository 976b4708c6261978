export {};
//# sourceMappingURL=token-meter.js.map
