revision = "0001"
