%{configs: [%{name: "default", strict: true}]}
