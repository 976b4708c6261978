export {};
//# sourceMappingURL=projector.js.map
