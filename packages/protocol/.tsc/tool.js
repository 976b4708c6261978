export {};
//# sourceMappingURL=tool.js.map
