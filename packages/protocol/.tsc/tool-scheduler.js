export {};
//# sourceMappingURL=tool-scheduler.js.map