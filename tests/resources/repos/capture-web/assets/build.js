const esbuild = require("esbuild");
esbuild.build({ entryPoints: ["js/app.js"], bundle: true, outdir: "../dist" });
