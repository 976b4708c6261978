export {};
//# sourceMappingURL=session.js.map
