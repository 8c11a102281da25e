module github.com/hashicorp/go-version

go 1.16
