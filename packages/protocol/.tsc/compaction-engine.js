export {};
//# sourceMappingURL=compaction-engine.js.map
